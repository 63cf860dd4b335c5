/**
 * A hostile server's tool schemas cannot freeze mcpscope (issue 26, findings 1 and 2). Before: a
 * tool whose `outputSchema` has `"pattern": "^(a+)+$"`, answering 40 `a`s and a `!`, spun the main
 * thread for ever (ajv's backtracking RegExp) — UI and API dead, nothing recorded, SIGTERM
 * ignored; a 3,000-property outputSchema blocked it 6.3 s and then dumped 1.7 MB of ajv's code on
 * stderr.
 *
 * The built CLI in reverse and forward mode, an official SDK client calling the hostile tools of
 * an official SDK server (test/support/hostile-schema-server.ts) through it, while the test asks
 * /api/stats every 20 ms: every answer comes within 200 ms, the violation of the pattern and the
 * note for the schema too large are recorded, nothing of ajv reaches stderr, and SIGTERM ends
 * mcpscope within its grace period. In-process, an event-loop delay monitor on mcpscope's main
 * thread sees no stall over 100 ms while it records the 3,000-property schema's call.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startMcpscope } from '../../proxy/app/mcpscope.js';
import type { McpscopeEvent, MessageEvent, ProblemEvent } from '../../proxy/core/model/events.js';
import { REDOS_VALUE, startHostileSchemaServer, type HostileSchemaServer } from '../support/hostile-schema-server.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const CLIENT = new URL('../support/hostile-schema-client.mjs', import.meta.url);

let server: HostileSchemaServer;
const children: ChildProcess[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  server = await startHostileSchemaServer();
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(async () => {
  await server?.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * The SDK client's session (test/support/hostile-schema-client.mjs) in a worker thread: its own
 * work never stalls the thread that measures. It lists the tools and calls the `warm` ones, then
 * `between()` runs (the test waits there until that is recorded, and starts measuring), then it
 * calls `calls` in order.
 */
async function runClient(
  url: string,
  calls: string[],
  o: { proxy?: string; warm?: string[]; between?: () => Promise<void> } = {},
): Promise<CallToolResult[]> {
  const worker = new Worker(CLIENT, { workerData: { url, proxy: o.proxy, warm: o.warm, calls } });
  const next = async <T>(): Promise<T> => {
    const [out] = (await once(worker, 'message')) as [T | { error: string }];
    if (typeof out === 'object' && out !== null && 'error' in out) throw new Error(out.error);
    return out as T;
  };
  try {
    expect((await next<{ tools: string[] }>()).tools).toEqual(['redos', 'wide', 'deep', 'fine', 'shaped']);
    await o.between?.();
    worker.postMessage('go');
    return (await next<{ results: CallToolResult[] }>()).results;
  } finally {
    await worker.terminate();
  }
}

interface Cli {
  child: ChildProcess;
  proxy: string;
  ui: string;
  token: string;
  stderr(): string;
  exit: Promise<number | null>;
}

async function startCli(args: string[]): Promise<Cli> {
  const home = mkdtempSync(join(tmpdir(), 'mcpscope-hostile-'));
  dirs.push(home);
  const child = spawn(process.execPath, [BIN, ...args, '--port', '0', '--ui-port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, MCPSCOPE_HOME: home, MCPSCOPE_TOKEN: '' },
  });
  children.push(child);
  let err = '';
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      if (/UI\s+http:\/\/\S+token=\S+/.test(err)) resolve();
    });
    void exit.then(() => reject(new Error(`mcpscope exited:\n${err}`)));
  });
  await started;
  const proxy = /proxy\s+(http:\/\/127\.0\.0\.1:\d+\S*)/.exec(err)![1];
  const ui = /UI\s+(http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)/.exec(err)!;
  return { child, proxy, ui: ui[1], token: ui[2], stderr: () => err, exit };
}

/** Asks /api/stats every 20 ms until stopped; the slowest answer (ms), or Infinity for one that never came. */
function pollStats(cli: Cli): { stop(): Promise<{ slowest: number; answers: number }> } {
  let running = true;
  let slowest = 0;
  let answers = 0;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      try {
        const res = await fetch(`${cli.ui}/api/stats`, {
          headers: { authorization: `Bearer ${cli.token}` },
          signal: AbortSignal.timeout(2_000),
        });
        await res.arrayBuffer();
        expect(res.status).toBe(200);
        answers += 1;
        slowest = Math.max(slowest, performance.now() - t);
      } catch {
        slowest = Infinity;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { slowest, answers };
    },
  };
}

async function events(cli: Cli): Promise<McpscopeEvent[]> {
  const res = await fetch(`${cli.ui}/api/events`, { headers: { authorization: `Bearer ${cli.token}` } });
  return (await res.json()) as McpscopeEvent[];
}

/**
 * Waits until `n` answers to tools/call `tool` are recorded (10 s at most), asking the small
 * /api/search rather than the whole store (which would cost the measuring thread its parse).
 */
async function answered(cli: Cli, tool: string, n: number): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    const res = await fetch(`${cli.ui}/api/search?tool=${tool}&dir=s2c`, { headers: { authorization: `Bearer ${cli.token}` } });
    const { hits } = (await res.json()) as { hits: unknown[] };
    if (hits.length >= n) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The responses to the tools/calls of `tool`. */
function answers(all: McpscopeEvent[], tool: string): MessageEvent[] {
  const msgs = all.filter((e): e is MessageEvent => e.type === 'message');
  const calls = new Set(msgs.filter((m) => m.method === 'tools/call' && m.name === tool).map((m) => m.seq));
  return msgs.filter((m) => m.kind === 'response' && m.pair !== undefined && calls.has(m.pair));
}

const problems = (all: McpscopeEvent[]) => all.filter((e): e is ProblemEvent => e.type === 'problem');
/** The response to the first tools/call of `tool`. */
const answerTo = (all: McpscopeEvent[], tool: string): MessageEvent | undefined => answers(all, tool)[0];

describe('hostile tool schemas through the built CLI', () => {
  const modes = [
    { name: 'reverse', args: () => ['--target', server.url], url: (cli: Cli) => cli.proxy, proxy: () => undefined },
    { name: 'forward', args: () => ['--forward'], url: () => server.url, proxy: (cli: Cli) => cli.proxy },
  ];
  for (const mode of modes) {
    it(`${mode.name}: /api/stats answers within 200 ms throughout, the violation is recorded, SIGTERM ends it`, async () => {
      const cli = await startCli(mode.args());
      let poll: ReturnType<typeof pollStats> | undefined;
      const results = await runClient(mode.url(cli), ['redos', 'redos', 'redos', 'wide', 'wide', 'shaped'], {
        proxy: mode.proxy(cli),
        // Measured from the moment a warm-up is recorded: the tools/list (166 KB) and a first ordinary
        // call. A fresh process's first message of each kind costs a few hundred ms whatever its content
        // (V8 and zod compile their code then) — that is not what this test is about.
        warm: ['shaped', 'fine'],
        between: async () => {
          await answered(cli, 'fine', 1);
          poll = pollStats(cli);
        },
      });
      expect(results.map((r) => r.structuredContent ?? r.content)).toEqual([
        { s: REDOS_VALUE },
        { s: REDOS_VALUE },
        { s: REDOS_VALUE },
        { p0: 'x' },
        { p0: 'x' },
        { s: 'fine' },
      ]);
      await answered(cli, 'shaped', 2);
      const { slowest, answers: polled } = await poll!.stop();
      const all = await events(cli);
      expect(polled).toBeGreaterThan(0);
      expect(slowest).toBeLessThan(200);
      const redos = answerTo(all, 'redos')!;
      expect(problems(all).filter((p) => p.message === redos.seq)).toEqual([
        expect.objectContaining({ code: 'spec-violation', rule: 'tools/structured-content-schema', path: '/result/structuredContent/s' }),
      ]);
      const wide = answerTo(all, 'wide')!;
      expect(problems(all).filter((p) => p.message === wide.seq)).toEqual([
        expect.objectContaining({ code: 'lint-not-checked', rule: 'lint/schema-too-large', level: 'warn' }),
      ]);
      // Nothing of ajv on stderr (before: 1.7 MB of generated code for the wide schema).
      expect(cli.stderr()).not.toMatch(/function code|scope\.schema|validate|ajv/i);
      const sent = performance.now();
      cli.child.kill('SIGTERM');
      expect(await cli.exit).toBe(0);
      // The default grace period is 5 s; with no call in flight it ends at once.
      expect(performance.now() - sent).toBeLessThan(5_000);
    });
  }
});

describe('in-process: the main thread while hostile schemas are recorded', () => {
  it('no event-loop stall over 100 ms while the 3,000-property schema and the backtracking pattern are recorded', async () => {
    const scope = await startMcpscope({ target: server.url, port: 0, uiPort: false });
    try {
      const delay = monitorEventLoopDelay({ resolution: 10 });
      await runClient(scope.proxy.url, ['wide', 'redos', 'wide', 'redos', 'wide', 'redos'], {
        between: async () => {
          await scope.settle();
          delay.enable();
        },
      });
      await scope.settle();
      delay.disable();
      expect(delay.max / 1e6).toBeLessThan(100);
      const all = scope.store.snapshot();
      expect(problems(all).map((p) => p.rule)).toEqual(
        expect.arrayContaining(['lint/schema-too-large', 'tools/structured-content-schema']),
      );
      // The note is said once per session; the violation for each call.
      expect(problems(all).filter((p) => p.rule === 'lint/schema-too-large')).toHaveLength(1);
      expect(problems(all).filter((p) => p.rule === 'tools/structured-content-schema')).toHaveLength(3);
    } finally {
      await scope.close();
    }
  });

  it('a check that would take 2^30 steps is stopped at its time limit and said, and recording goes on', async () => {
    const scope = await startMcpscope({ target: server.url, port: 0, uiPort: false });
    try {
      await runClient(scope.proxy.url, ['deep', 'deep', 'fine']);
      await scope.settle();
      const all = scope.store.snapshot();
      expect(
        problems(all)
          .filter((p) => p.code === 'lint-not-checked')
          .map((p) => p.rule),
      ).toEqual(['lint/schema-too-slow']);
      expect(answerTo(all, 'fine')).toBeDefined();
    } finally {
      await scope.close();
    }
  });
});
