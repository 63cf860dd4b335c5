/**
 * The routes every rule kind on the UI port shares (faults, breakpoints), for a collection `path`:
 *
 *   GET    <path>        the rules
 *   POST   <path>        add a rule (JSON; `id` optional) → 201 with the rule, 400 { error, code: BAD_RULE } if invalid
 *   DELETE <path>/:id    remove one → { ok: true }, 404 { error: "No <noun> <id>", code: NO_RULE }
 *   DELETE <path>        remove every rule → { ok: true }
 *
 * A change is answered once every holder adopted it (`applied`), so a message sent after the
 * answer is decided with the new rules.
 */
import type { FastifyInstance } from 'fastify';
import type { Rule, RuleSet } from '../core/rules/rule-set.js';
import { McpscopeError, SAY } from '../core/model/errors.js';

export interface RuleRoutes {
  /** The collection's URL, e.g. `/api/faults`. */
  path: string;
  /** What one rule is called in a 404's error (`No ${noun} ${id}`). */
  noun: string;
  set: Pick<RuleSet<Rule>, 'list' | 'add' | 'remove' | 'clear'>;
  /** Resolves once every holder adopted the current rules. */
  applied: () => Promise<void>;
}

export function ruleRoutes(app: FastifyInstance, { path, noun, set, applied }: RuleRoutes): void {
  app.get(path, async () => set.list());
  app.post(path, async (req, reply) => {
    let rule;
    try {
      rule = set.add(req.body);
    } catch (err) {
      throw new McpscopeError('BAD_RULE', (err as Error).message, { cause: err });
    }
    await applied();
    return reply.code(201).send(rule);
  });
  app.delete<{ Params: { id: string } }>(`${path}/:id`, async (req) => {
    if (!set.remove(req.params.id)) throw new McpscopeError('NO_RULE', SAY.noRule(noun, req.params.id));
    await applied();
    return { ok: true };
  });
  app.delete(path, async () => {
    set.clear();
    await applied();
    return { ok: true };
  });
}
