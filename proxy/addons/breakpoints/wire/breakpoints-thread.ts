/**
 * The breakpoints addon's proxy-thread half (proxy/wire/thread/thread-addon.ts): the mirrored
 * rules, the desk where held messages wait for the user's action, and the HTTP holds' steps.
 * It talks with its main-thread link (proxy/addons/breakpoints/breakpoints-link.ts) in
 * breakpoint-messages.ts's messages.
 */
import { BreakpointRegistry } from '../../../core/rules/breakpoint-rules.js';
import type { BreakpointEntry } from '../../../core/rules/breakpoint-types.js';
import type { ThreadAddon } from '../../../wire/thread/thread-addon.js';
import { HoldDesk } from './hold-desk.js';
import { breakpointSteps } from './http-holds.js';
import {
  BREAKPOINTS,
  type BreakpointLinkMessage,
  type BreakpointThreadMessage,
  type BreakpointThreadOptions,
} from './breakpoint-messages.js';

export const breakpointsThread: ThreadAddon = {
  name: BREAKPOINTS,
  start(ctx) {
    const options = (ctx.options ?? {}) as BreakpointThreadOptions;
    const tell = (m: BreakpointThreadMessage) => ctx.tell(m);
    const registry = new BreakpointRegistry();
    registry.onTaken = (id, serial) => ctx.taken(id, serial);
    const desk = new HoldDesk({
      prefix: 'h',
      holdMs: options.holdMs,
      // The records before a held message go first, so that the main thread knows its exchange.
      beforeReport: () => ctx.flush(),
      report: (report) => tell({ kind: 'paused', report }),
      released: (id, outcome) => tell({ kind: 'released', id, outcome }),
    });
    return {
      steps: breakpointSteps({ registry, desk, capture: ctx.capture, hashSessionIds: options.hashSessionIds }),
      rules: (entries) => registry.mirror(entries as BreakpointEntry[]),
      receive: (body) => {
        const m = body as BreakpointLinkMessage;
        if (m.kind === 'action') desk.act(m.id, m.action);
      },
    };
  },
};
