/**
 * The fault-injection API on the UI port (inside its token/Host/Origin guard):
 *
 *   GET    /api/faults        the rules
 *   POST   /api/faults        add a rule (JSON: a FaultRule; `id` optional) → 201 with the rule
 *   DELETE /api/faults/:id    remove one rule
 *   DELETE /api/faults        remove every rule (fault injection off)
 *
 * A change is answered once the proxy has adopted it (`applied`: the proxy thread confirmed), so a
 * request sent after the answer is decided with the new rules (the routes: ../rule-routes.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { FaultRegistry } from '../../core/rules/fault-rules.js';
import { ruleRoutes } from '../rule-routes.js';

export function faultRoutes(registry: FaultRegistry, applied: () => Promise<void> = async () => undefined) {
  return (app: FastifyInstance): void => ruleRoutes(app, { path: '/api/faults', noun: 'fault rule', set: registry, applied });
}
