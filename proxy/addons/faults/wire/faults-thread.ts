/**
 * The faults addon's proxy-thread half (proxy/wire/thread/thread-addon.ts): the mirrored rules
 * and the before-upstream step that acts on them (fault-actions.ts).
 */
import { FaultRegistry, type FaultRuleEntry } from '../../../core/rules/fault-rules.js';
import type { ThreadAddon } from '../../../wire/thread/thread-addon.js';
import { faultSteps } from './fault-actions.js';
import { FAULTS } from './fault-messages.js';

export const faultsThread: ThreadAddon = {
  name: FAULTS,
  start(ctx) {
    const registry = new FaultRegistry();
    registry.onTaken = (id, serial) => ctx.taken(id, serial);
    return { steps: faultSteps(ctx.capture, registry), rules: (entries) => registry.mirror(entries as FaultRuleEntry[]) };
  },
};
