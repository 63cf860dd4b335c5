/**
 * Fault injection: the rules (off until one is added), edited through
 * GET/POST/DELETE /api/faults and mirrored to the proxy thread, whose before-upstream step acts
 * on them (wire/faults-thread.ts).
 */
import { FaultRegistry } from '../../core/rules/fault-rules.js';
import type { McpscopeAddon } from '../addon.js';
import { faultRoutes } from './routes.js';
import { FAULTS } from './wire/fault-messages.js';

export interface FaultsAddon extends McpscopeAddon {
  readonly rules: FaultRegistry;
}

/** `applied`: resolves once the proxy thread has the current rules. */
export function faultsAddon(o: { applied: () => Promise<void> }): FaultsAddon {
  const rules = new FaultRegistry();
  return {
    name: FAULTS,
    rules,
    thread: { name: FAULTS, rules },
    routes: () => faultRoutes(rules, o.applied),
  };
}
