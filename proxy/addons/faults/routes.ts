/**
 * The fault-injection API on the UI port (inside its token/Host/Origin guard):
 *
 *   GET    /api/faults        the rules
 *   POST   /api/faults        add a rule (JSON: a FaultRule; `id` optional) → 201 with the rule
 *   DELETE /api/faults/:id    remove one rule
 *   DELETE /api/faults        remove every rule (fault injection off)
 *
 * A change is answered once the proxy has adopted it (`applied`: the proxy thread confirmed), so a
 * request sent after the answer is decided with the new rules.
 */
import type { FastifyInstance } from 'fastify';
import type { FaultRegistry } from '../../core/rules/fault-rules.js';

export function faultRoutes(registry: FaultRegistry, applied: () => Promise<void> = async () => undefined) {
  return (app: FastifyInstance): void => {
    app.get('/api/faults', async () => registry.list());
    app.post('/api/faults', async (req, reply) => {
      let rule;
      try {
        rule = registry.add(req.body);
      } catch (err) {
        return reply.code(400).send({ error: (err as Error).message });
      }
      await applied();
      return reply.code(201).send(rule);
    });
    app.delete<{ Params: { id: string } }>('/api/faults/:id', async (req, reply) => {
      if (!registry.remove(req.params.id)) return reply.code(404).send({ error: `No fault rule ${req.params.id}` });
      await applied();
      return { ok: true };
    });
    app.delete('/api/faults', async () => {
      registry.clear();
      await applied();
      return { ok: true };
    });
  };
}
