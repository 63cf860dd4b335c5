/**
 * The breakpoint API on the UI port (inside its token/Host/Origin guard):
 *
 *   GET    /api/breakpoints        the rules
 *   POST   /api/breakpoints        add one: { "match": { "dir": "c2s"|"s2c", "method"?, "tool"?, "session"? }, "once"? } → 201 { id, … }
 *   GET    /api/breakpoints/:id    one rule
 *   DELETE /api/breakpoints/:id    remove one
 *   DELETE /api/breakpoints        remove every rule (breakpoints off; messages already held stay held)
 *   GET    /api/paused             the held messages: [{ id, dir, sessionId, message, since, expiresAt, … }]
 *   GET    /api/paused/:id         one of them
 *   POST   /api/paused/:id         { "action": "resume", "message"? } | { "action": "drop" } | { "action": "respond", "message" }
 *
 * A rule change is answered once every holder adopted it (`applied`), so a message sent after the
 * answer is decided with the new rules (the rule routes: ../rule-routes.ts). An action is answered
 * once its holder carried it out.
 */
import type { FastifyInstance } from 'fastify';
import type { BreakpointRegistry } from '../../core/rules/breakpoint-rules.js';
import type { PausedRegistry } from './paused-registry.js';
import { ruleRoutes } from '../rule-routes.js';
import { McpscopeError, SAY } from '../../core/model/errors.js';

export interface BreakpointRouteDeps {
  rules: BreakpointRegistry;
  paused: PausedRegistry;
  /** Resolves once every holder adopted the current rules. */
  applied?: () => Promise<void>;
}

export function breakpointRoutes(deps: BreakpointRouteDeps) {
  const { rules, paused } = deps;
  const applied = deps.applied ?? (async () => undefined);
  return (app: FastifyInstance): void => {
    ruleRoutes(app, { path: '/api/breakpoints', noun: 'breakpoint', set: rules, applied });
    app.get<{ Params: { id: string } }>('/api/breakpoints/:id', async (req) => {
      const rule = rules.get(req.params.id);
      if (!rule) throw new McpscopeError('NO_RULE', SAY.noRule('breakpoint', req.params.id));
      return rule;
    });
    app.get('/api/paused', async () => paused.list());
    app.get<{ Params: { id: string } }>('/api/paused/:id', async (req) => {
      const p = paused.get(req.params.id);
      if (!p) throw new McpscopeError('NO_HELD', SAY.noHeld(req.params.id));
      return p;
    });
    app.post<{ Params: { id: string } }>('/api/paused/:id', async (req) => {
      const id = req.params.id;
      const wait = paused.whenReleased(id);
      const problem = paused.act(id, req.body);
      if (problem) throw problem;
      await wait;
      return { ok: true };
    });
  };
}
