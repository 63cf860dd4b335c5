/**
 * Which protocol version the replay's `initialize` answers with.
 *
 * The recorded answer names the version the recorded server spoke with the recorded client. A
 * live client may ask for another one, and the replay answers as the official SDK's server does
 * (`Server._oninitialize` in @modelcontextprotocol/sdk and @modelcontextprotocol/server: the
 * requested version when it is among the supported ones, else the latest it supports), taking
 * the recorded version as that server's latest and the versions an SDK server accepts
 * (`SUPPORTED_PROTOCOL_VERSIONS`, the 2024-10-07 draft included) and mcpscope knows
 * (KNOWN_VERSIONS) as its supported ones:
 * - the same version as recorded → the recorded answer, unchanged;
 * - an older supported version → that version: negotiated down. Only `protocolVersion` changes;
 *   every answer is still the recording's as it was, so it may carry fields the older version
 *   does not have (icons, `execution`, `structuredContent`…), and a stateless (2026-07-28)
 *   recording keeps its session handling;
 * - a newer version, one no SDK server accepts, or none → the recorded version, which is what
 *   the recorded server would say; the client decides whether it can go on with it.
 * Nothing is refused: a server answers `initialize` with a version it speaks, never an error.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { KNOWN_VERSIONS, versionAtLeast } from '../../core/model/protocol-version.js';

/** The versions an SDK server answers with when asked for them, oldest first. */
export const ACCEPTED_VERSIONS: readonly string[] = [...new Set([...SUPPORTED_PROTOCOL_VERSIONS, ...KNOWN_VERSIONS])].sort();

export interface VersionNegotiation {
  /** What the client asked for (`params.protocolVersion`); undefined when it named no version. */
  requested: string | undefined;
  /** The recorded answer's `protocolVersion`. */
  recorded: string;
  /** What the replay answers with. */
  answered: string;
  /**
   * `same`: the client asked for the recorded version; `down`: an older supported version,
   * answered with it; `newer`, `unknown` (no SDK server accepts it) or `none` (no version named):
   * answered with the recorded version.
   */
  outcome: 'same' | 'down' | 'newer' | 'unknown' | 'none';
}

/** The version `initialize` answers with when the live client asks for `requested` and the recording answered `recorded`. */
export function negotiateVersion(requested: unknown, recorded: string): VersionNegotiation {
  const asked = typeof requested === 'string' ? requested : undefined;
  const as = (answered: string, outcome: VersionNegotiation['outcome']) => ({ requested: asked, recorded, answered, outcome });
  if (asked === recorded) return as(recorded, 'same');
  if (asked === undefined) return as(recorded, 'none');
  if (!ACCEPTED_VERSIONS.includes(asked)) return as(recorded, 'unknown');
  return versionAtLeast(recorded, asked) ? as(asked, 'down') : as(recorded, 'newer');
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
    case 'none':
    case 'newer':
    case 'unknown': {
      const asked =
        n.outcome === 'none'
          ? 'named no protocol version'
          : n.outcome === 'newer'
            ? `asked for ${n.requested}, newer than the recording`
            : `asked for ${JSON.stringify(n.requested)}, which is none of the versions an SDK server accepts (${ACCEPTED_VERSIONS.join(', ')})`;
      return `initialize: the client ${asked}; answered ${n.recorded}, the recorded version, as the recorded server would (the client decides whether it goes on)`;
    }
  }
}
