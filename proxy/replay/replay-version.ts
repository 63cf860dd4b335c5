/**
 * Which protocol version the replay's `initialize` answers with (issue 28).
 *
 * The recorded answer names the version the recorded server spoke with the recorded client. A
 * live client may ask for another one, and the replay answers as the official SDK's server does
 * (`Server._oninitialize` in @modelcontextprotocol/sdk and @modelcontextprotocol/server: the
 * requested version when it is among the supported ones, else the latest it supports), taking
 * the recorded version as that server's latest:
 * - the same version as recorded → the recorded answer, unchanged;
 * - an older released version (KNOWN_VERSIONS) → that version: negotiated down. Only
 *   `protocolVersion` changes; every answer is still the recording's as it was, so it may carry
 *   fields the older version does not have (icons, `execution`, `structuredContent`…);
 * - a newer version, one mcpscope does not know, or none → the recorded version, which is what
 *   the recorded server would say; the client decides whether it can go on with it.
 * Nothing is refused: a server answers `initialize` with a version it speaks, never an error.
 * Pure: no Node APIs.
 */
import { KNOWN_VERSIONS } from '../model/protocol-version.js';
import { versionAtLeast } from '../model/protocol-version.js';

export interface VersionNegotiation {
  /** What the client asked for (`params.protocolVersion`); undefined when it named no version. */
  requested: string | undefined;
  /** The recorded answer's `protocolVersion`. */
  recorded: string;
  /** What the replay answers with. */
  answered: string;
  /**
   * `same`: the client asked for the recorded version; `down`: an older released version,
   * answered with it; `recorded`: newer, unknown or none, answered with the recorded version.
   */
  outcome: 'same' | 'down' | 'recorded';
}

function isReleased(version: string): boolean {
  return (KNOWN_VERSIONS as readonly string[]).includes(version);
}

/** The version `initialize` answers with when the live client asks for `requested` and the recording answered `recorded`. */
export function negotiateVersion(requested: unknown, recorded: string): VersionNegotiation {
  const asked = typeof requested === 'string' ? requested : undefined;
  if (asked === recorded) return { requested: asked, recorded, answered: recorded, outcome: 'same' };
  if (asked !== undefined && isReleased(asked) && versionAtLeast(recorded, asked))
    return { requested: asked, recorded, answered: asked, outcome: 'down' };
  return { requested: asked, recorded, answered: recorded, outcome: 'recorded' };
}

/** One line for the replay's log: what was asked, what was answered and why. */
export function describeNegotiation(n: VersionNegotiation): string {
  switch (n.outcome) {
    case 'same':
      return `initialize: the client asked for ${n.recorded}, the recorded version`;
    case 'down':
      return (
        `initialize: negotiated ${n.answered}, recorded ${n.recorded}: answers are the recording's as they were ` +
        `(the client asked for ${n.answered}; anything the ${n.recorded} server put in them that ${n.answered} does not have is sent all the same)`
      );
    case 'recorded': {
      const asked =
        n.requested === undefined
          ? 'named no protocol version'
          : isReleased(n.requested) && versionAtLeast(n.requested, n.recorded)
            ? `asked for ${n.requested}, newer than the recording`
            : `asked for ${JSON.stringify(n.requested)}, which is none of the released versions mcpscope knows (${KNOWN_VERSIONS.join(', ')})`;
      return `initialize: the client ${asked}; answered ${n.recorded}, the recorded version, as the recorded server would (the client decides whether it goes on)`;
    }
  }
}
