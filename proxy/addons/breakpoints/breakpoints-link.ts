/**
 * The breakpoints addon's link to its proxy-thread half (proxy/wire/thread/thread-addon.ts): the
 * rules go to the thread; a message it holds joins the paused registry (/api/paused), the user's
 * action on it goes back, and what a thread that ended held is forgotten.
 */
import type { BreakpointRegistry } from '../../core/rules/breakpoint-rules.js';
import type { AddonThread, ThreadAddonLink } from '../../wire/thread/thread-addon.js';
import type { PausedHolder, PausedRegistry } from './paused-registry.js';
import {
  BREAKPOINTS,
  type BreakpointLinkMessage,
  type BreakpointThreadMessage,
  type BreakpointThreadOptions,
} from './wire/breakpoint-messages.js';

export interface BreakpointsLinkOptions extends BreakpointThreadOptions {
  rules: BreakpointRegistry;
  paused: PausedRegistry;
  /** Runs the recorder on what was captured so far (before a held message is added: its exchange must be known). */
  flush(): void;
}

export function breakpointsLink(o: BreakpointsLinkOptions): ThreadAddonLink {
  // One holder per running thread: the paused registry hands the user's action to it.
  const holders = new WeakMap<AddonThread, PausedHolder>();
  const holderOf = (thread: AddonThread): PausedHolder => {
    let holder = holders.get(thread);
    if (!holder) {
      holder = { act: (id, action) => thread.tell({ kind: 'action', id, action } satisfies BreakpointLinkMessage) };
      holders.set(thread, holder);
    }
    return holder;
  };
  const threadOptions: BreakpointThreadOptions = { holdMs: o.holdMs, hashSessionIds: o.hashSessionIds };
  return {
    name: BREAKPOINTS,
    threadOptions,
    rules: o.rules,
    receive(body, thread) {
      const m = body as BreakpointThreadMessage;
      if (m.kind === 'paused') {
        o.flush();
        o.paused.add('h', holderOf(thread), m.report);
      } else if (m.kind === 'released') o.paused.released('h', m.id, m.outcome);
    },
    ended: (thread) => o.paused.forget(holderOf(thread)),
  };
}
