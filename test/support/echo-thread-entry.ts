/**
 * A proxy worker entry for test/e2e/thread-addon.test.ts: the wire layer's worker, run with one
 * test addon whose half echoes what reaches it (its options at start, each rule list, each
 * message) back to its link, and reports a rule taken when its link asks.
 */
import { runProxyWorker } from '../../proxy/wire/thread/proxy-worker.js';
import type { ThreadAddon } from '../../proxy/wire/thread/thread-addon.js';

const echo: ThreadAddon = {
  name: 'echo',
  start(ctx) {
    ctx.tell({ kind: 'started', options: ctx.options });
    return {
      steps: () => ({}),
      rules: (entries) => ctx.tell({ kind: 'rules', entries }),
      receive: (body) => {
        const m = body as { take?: { id: string; serial: number } };
        if (m.take) ctx.taken(m.take.id, m.take.serial);
        else ctx.tell({ kind: 'echo', body });
      },
    };
  },
};

await runProxyWorker([echo]);
