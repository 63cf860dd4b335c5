/**
 * A session's short label for the "All sessions" timeline (components/SessionBadge.tsx): its id as
 * the session list shows it (`s3`), its client's name when known, and a colour that stays the
 * session's wherever it is drawn (the badge, the session list's id).
 */
import type { SessionInfo } from './types.js';
import { escapeInvisible } from './visible-text.js';

/** Colours to tell sessions apart (SessionBadge.css: `sess-c0` … `sess-c7`). */
export const SESSION_COLOURS = 8;

export interface SessionLabel {
  id: string;
  /** What the badge shows after the id: the client's name, a plain HTTP bucket's host; undefined when unknown. */
  name?: string;
  /** 0 … SESSION_COLOURS - 1: `s1`, `s2`, … take the colours in turn, so neighbours differ. */
  colour: number;
  /** The badge's tooltip. */
  title: string;
}

/** The colour of a session id: its number's turn for `s<n>`, else a hash of the id. */
export function sessionColour(id: string): number {
  const n = /^s(\d+)$/.exec(id);
  if (n) return (Number(n[1]) - 1 + SESSION_COLOURS) % SESSION_COLOURS;
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) | 0;
  return Math.abs(h) % SESSION_COLOURS;
}

function hostOf(target: string): string | undefined {
  try {
    return new URL(target).host || undefined;
  } catch {
    return undefined;
  }
}

export function sessionLabel(id: string, s: SessionInfo | undefined): SessionLabel {
  const name = s?.transport === 'http' ? hostOf(s.target) : s?.clientInfo?.name;
  const peers =
    s === undefined
      ? ''
      : s.transport === 'http'
        ? ` · plain HTTP to ${s.target}`
        : ` · ${s.clientInfo?.name ?? 'unknown client'} → ${s.serverInfo?.name ?? 'unknown server'}`;
  return {
    id,
    name,
    colour: sessionColour(id),
    // Escaped once here (a peer's name may hold invisible characters), not per render of every badge.
    title: escapeInvisible(
      `Session ${id}${peers}. Click to show only its rows (session:${id} in the search box); click again for all sessions.`,
    ),
  };
}

/**
 * Labels of the sessions, by id, memoized on what a label shows: the same map (and the same label
 * objects, which memoized rows compare) until a session appears or learns its client's name.
 */
export class SessionLabels {
  private key = '';
  private map: ReadonlyMap<string, SessionLabel> = new Map();

  of(sessions: readonly SessionInfo[]): ReadonlyMap<string, SessionLabel> {
    let key = '';
    for (const s of sessions) key += `${s.id}\u0000${s.transport}\u0000${s.clientInfo?.name ?? ''}\u0000${s.serverInfo?.name ?? ''}\u0001`;
    if (key !== this.key) {
      this.key = key;
      this.map = new Map(sessions.map((s) => [s.id, sessionLabel(s.id, s)]));
    }
    return this.map;
  }
}
