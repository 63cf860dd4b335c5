/**
 * How a wrapper's breakpoints and sends (stdio-holds.ts, on the relay thread) meet the UI it
 * records into. The UI's end is its `/ingest` socket (app/serve/ingest.ts), held by the wrapper's
 * recorder thread (ingest-link.ts), which passes the control messages (ingest-control.ts) through
 * in both directions — one path, whether the UI is another process's or the one the wrapper
 * serves itself.
 */
import type { ControlDown, ControlUp } from './ingest-control.js';
import type { StdioHolds } from './stdio-holds.js';

export interface HoldsLink {
  /** A control message from the UI. */
  control(m: ControlDown): void;
  /** A UI link is up: held lines are reported to it (those held now, at once). */
  linked(): void;
  /** The link is gone: nobody can act on what is held, so it goes on unchanged, and the rules go. */
  unlinked(): void;
}

/** Links `holds` to the UI whose control messages go `up`. */
export function linkHolds(holds: StdioHolds, up: (m: ControlUp) => void): HoldsLink {
  return {
    control(m) {
      if (m.type === 'breakpoints') {
        holds.setRules(m.entries, m.holdMs);
        if (m.seq !== undefined) up({ type: 'rules', seq: m.seq });
      } else if (m.type === 'act') holds.act(m.id, m.action);
      else if (m.type === 'send') void holds.send(m.message, m.timeoutMs).then((outcome) => up({ type: 'sent', ref: m.ref, ...outcome }));
    },
    linked() {
      holds.uplink = {
        held: (report) => up({ type: 'held', report }),
        released: (id, outcome) => up({ type: 'released', id, outcome }),
        taken: (id, serial) => up({ type: 'taken', id, serial }),
      };
      // A UI linked anew (after a restart) learns what is held now.
      for (const report of holds.held()) up({ type: 'held', report });
    },
    unlinked() {
      holds.unlinked();
    },
  };
}
