/**
 * Issue 15, items 2 and 3, end to end with the built CLI (`npm run build` first; `npm test` does):
 *
 * - `mcpscope verify` of a fixture recorded from server-everything (through mcpscope, by a client
 *   with roots, sampling and elicitation) against that same server passes, over Streamable HTTP
 *   and stdio: the server's roots/list, which comes on the standalone GET stream while a call is
 *   in flight, is answered with the recorded client's reply and blamed on no call. It still fails,
 *   with a readable difference, when a result really changed.
 * - The demo fixture (test/fixtures/demo-client-round.fixture.json, one round of
 *   proxy/app/demo/demo-client.ts) passes against the demo server thanks to its documented ignore
 *   list (random_delay's text is random); `--ignore` does the same from the command line; a
 *   fresh recording passes with the same list; a changed result still fails.
 * - `mcpscope replay` keeps the recorded timing by default: a slow call and a fast one sent
 *   together complete in the recorded order (fast first) and progress arrives at its recorded
 *   pace, over HTTP and stdio; `--timing fast` answers at once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { Fixture } from '../../proxy/core/model/fixture-format.js';
import { loadFixture } from '../../proxy/files/import/load-fixture.js';
import { verifyFixture } from '../../proxy/files/replay/verify.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startDemoClient } from '../../proxy/app/demo/demo-client.js';
import { everythingEntry, startEverythingServer, type RunningPeer } from '../support/peers.js';
import { fixtureErrors } from '../support/fixture-schema.js';
import { BIN, ROOT, fixtureOf, runCli, startReplayCli } from '../support/fixture-cli.js';

const DEMO_FIXTURE = join(ROOT, 'test', 'fixtures', 'demo-client-round.fixture.json');
/** The ignore list documented for the demo fixture (docs/testing-with-fixtures.md). */
const DEMO_IGNORE = ['tools/call random_delay › content[0].text'];

function textOf(result: unknown): string {
  return ((result as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');
}

// ---------------------------------------------------------------------------------------------
// Item 2: verify against the very server the fixture came from
// ---------------------------------------------------------------------------------------------

describe('verify against the server-everything the fixture was recorded from', () => {
  let peer: RunningPeer;
  let scope: Mcpscope;
  let fixture: Fixture;
  let dir: string;
  let fixturePath: string;

  beforeAll(async () => {
    peer = await startEverythingServer('streamableHttp');
    scope = await startMcpscope({ target: peer.url, port: 0, uiPort: false });
    // A client with roots: server-everything asks for them (roots/list, on the standalone GET
    // stream) 350 ms after initialization, here while the long-running operation is in flight.
    const client = new Client(
      { name: 'roots-recording', version: '1.0.0' },
      { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } },
    );
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work/project', name: 'project' }] }));
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      model: 'recorded-llm',
      content: { type: 'text', text: 'sampled' },
    }));
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
    const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
    await client.connect(transport);
    await client.listTools();
    await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    await Promise.all([
      client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } }, undefined, {
        onprogress: () => undefined,
      }),
      client.callTool({ name: 'echo', arguments: { message: 'fast' } }),
    ]);
    await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'say something', maxTokens: 5 } });
    const roots = await client.callTool({ name: 'get-roots-list', arguments: {} });
    expect(textOf(roots)).toContain('file:///work/project');
    await client.listPrompts();
    await client.listResources();
    await transport.terminateSession();
    await client.close();
    fixture = await fixtureOf(scope, 'roots-recording');
    dir = mkdtempSync(join(tmpdir(), 'mcpscope-verify-fidelity-'));
    fixturePath = join(dir, 'everything-roots.fixture.json');
    writeFileSync(fixturePath, JSON.stringify(fixture, null, 2));
  });
  afterAll(async () => {
    await scope?.close();
    await peer?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the recording holds roots/list on the standalone stream, answered by the client', () => {
    const roots = fixture.messages.find((m) => m.method === 'roots/list' && m.kind === 'request')!;
    expect(roots.carrier).toBe('get-sse');
    expect(roots.parent).toBeUndefined();
    expect(fixture.messages.some((m) => m.dir === 'c2s' && m.kind === 'response' && m.pair === roots.seq)).toBe(true);
  });

  it('passes over Streamable HTTP (exit 0)', async () => {
    const r = await runCli(['verify', fixturePath, '--target', peer.url], 60_000);
    expect(r.stdout, r.stdout + r.stderr).toContain('OK: every response matches the recording.');
    expect(r.stdout).toContain('✓ tools/call get-roots-list');
    expect(r.stdout).toContain('✓ tools/call trigger-long-running-operation');
    expect(r.code).toBe(0);
  });

  it('passes against the stdio server (exit 0)', async () => {
    const r = await runCli(['verify', fixturePath, '--', process.execPath, everythingEntry, 'stdio'], 60_000);
    expect(r.stdout, r.stdout + r.stderr).toContain('OK: every response matches the recording.');
    expect(r.code).toBe(0);
  });

  it('still fails with a clear difference when a tool result differs (exit 1)', async () => {
    const changed = structuredClone(fixture);
    const echo = changed.messages.find(
      (m) => m.kind === 'response' && m.name === 'echo' && JSON.stringify(m.message).includes('Echo: hi'),
    )!;
    (echo.message.result as { content: { text: string }[] }).content[0].text = 'Echo: hello';
    const path = join(dir, 'changed.fixture.json');
    writeFileSync(path, JSON.stringify(changed));
    const r = await runCli(['verify', path, '--target', peer.url], 60_000);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('tools/call echo › content[0].text: "Echo: hello" → "Echo: hi"');
    expect(r.stdout).toMatch(/FAIL: 1 difference in 1 of 9 calls\./);
  });

  it('reports a server→client request the recording never had where it came (the standalone stream), not on the call in flight', async () => {
    const stripped = structuredClone(fixture);
    const roots = stripped.messages.find((m) => m.method === 'roots/list' && m.kind === 'request')!;
    stripped.messages = stripped.messages.filter((m) => m.seq !== roots.seq && m.pair !== roots.seq);
    const report = await verifyFixture(stripped, { target: peer.url });
    expect(report.ok).toBe(false);
    expect(report.differences.map((d) => d.text)).toContainEqual(
      '(server-initiated) › server→client request roots/list (on the standalone stream) is not in the recording',
    );
    expect(report.differences.filter((d) => d.path === 'server requests' && d.call !== '(server-initiated)')).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Item 2: the demo fixture and its ignore list
// ---------------------------------------------------------------------------------------------

describe('the demo fixture with its documented ignore list, against the demo server', () => {
  let demo: DemoServer;
  let dir: string;

  beforeAll(async () => {
    demo = await startDemoServer({ port: 0 });
    dir = mkdtempSync(join(tmpdir(), 'mcpscope-verify-demo-'));
  });
  afterAll(async () => {
    await demo?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is a valid fixture carrying the documented ignore list', () => {
    const f = loadFixture(DEMO_FIXTURE);
    expect(fixtureErrors(f)).toBeUndefined();
    expect(f.verify?.ignore).toEqual(DEMO_IGNORE);
  });

  it('passes (exit 0), the random_delay differences set aside by the ignore list', async () => {
    const r = await runCli(['verify', DEMO_FIXTURE, '--target', demo.url], 60_000);
    expect(r.stdout, r.stdout + r.stderr).toContain('OK: every response matches the recording.');
    expect(r.stdout).toContain('ignored ("tools/call random_delay › content[0].text")');
    expect(r.code).toBe(0);
  });

  it('without the list fails on random_delay’s text alone; --ignore on the command line does what the list does', async () => {
    const bare = JSON.parse(readFileSync(DEMO_FIXTURE, 'utf8')) as Fixture;
    delete bare.verify;
    const path = join(dir, 'bare.fixture.json');
    writeFileSync(path, JSON.stringify(bare));
    const r = await runCli(['verify', path, '--target', demo.url, '--json'], 60_000);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { differences: { call: string; path: string }[] };
    expect(report.differences.length).toBeGreaterThan(0);
    for (const d of report.differences) expect(d).toMatchObject({ call: 'tools/call random_delay', path: 'content[0].text' });
    const ignored = await runCli(['verify', path, '--target', demo.url, '--ignore', 'tools/call random_delay > content[0].text'], 60_000);
    expect(ignored.stdout).toContain('OK: every response matches the recording.');
    expect(ignored.code).toBe(0);
    const bad = await runCli(['verify', path, '--target', demo.url, '--ignore', 'content[0'], 60_000);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"[" is not closed');
  });

  it('still fails with a clear difference when a result differs (exit 1)', async () => {
    const changed = JSON.parse(readFileSync(DEMO_FIXTURE, 'utf8')) as Fixture;
    const add = changed.messages.find((m) => m.kind === 'response' && m.name === 'add')!;
    const recordedText = (add.message.result as { content: { text: string }[] }).content[0].text;
    (add.message.result as { content: { text: string }[] }).content[0].text = 'the sum is 42';
    const path = join(dir, 'changed.fixture.json');
    writeFileSync(path, JSON.stringify(changed));
    const r = await runCli(['verify', path, '--target', demo.url], 60_000);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain(`tools/call add › content[0].text: "the sum is 42" → ${JSON.stringify(recordedText)}`);
    expect(r.stdout).toMatch(/FAIL: 1 difference in 1 of \d+ calls\./);
  });

  it('reports a server→client request the recording had on the standalone stream that never came', async () => {
    const f = loadFixture(DEMO_FIXTURE);
    const at = f.messages.findIndex((m) => m.t > 100);
    const seq = f.messages[at - 1].seq;
    // (seq + 0.25/0.5 keep wire order; nothing links to them but the reply's pair.)
    f.messages.splice(
      at,
      0,
      {
        seq: seq + 0.25,
        t: 100,
        dir: 's2c',
        kind: 'request',
        carrier: 'get-sse',
        message: { jsonrpc: '2.0', id: 90, method: 'roots/list' },
        method: 'roots/list',
      },
      {
        seq: seq + 0.5,
        t: 101,
        dir: 'c2s',
        kind: 'response',
        carrier: 'post-body',
        pair: seq + 0.25,
        message: { jsonrpc: '2.0', id: 90, result: { roots: [] } },
      },
    );
    const report = await verifyFixture(f, { target: demo.url });
    expect(report.differences.map((d) => d.text)).toEqual([
      '(server-initiated) › server→client request roots/list never came (the recording has it on the standalone stream, at 100 ms)',
    ]);
    expect(report.calls.at(-1)).toMatchObject({ call: '(server-initiated)', status: 'different' });
  });

  it('a fresh recording of the demo client passes with the same ignore list', async () => {
    const scope = await startMcpscope({ target: demo.url, port: 0, uiPort: false });
    try {
      let roundDone!: () => void;
      const round = new Promise<void>((r) => (roundDone = r));
      const client = startDemoClient(scope.proxy.url, { roundsPerSession: 1, intervalMs: 10, slowStepMs: 100, onRound: () => roundDone() });
      await round;
      await client.stop();
      const fresh = await fixtureOf(scope, 'mcpscope-demo-client');
      const report = await verifyFixture({ ...fresh, verify: { ignore: DEMO_IGNORE } }, { target: demo.url });
      expect(report.differences).toEqual([]);
      expect(report.calls.filter((c) => c.status === 'same').length).toBeGreaterThan(15);
    } finally {
      await scope.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Item 3: replay keeps the recorded timing
// ---------------------------------------------------------------------------------------------

const LONG_ARGS = { duration: 1.5, steps: 3 };

interface Concurrent {
  order: string[];
  /** ms from sending the long call to its result. */
  longMs: number;
  /** ms from sending the long call to each progress notification. */
  progressMs: number[];
}

/** The long-running operation and a fast echo sent together; which completed first, and when. */
async function concurrentCalls(transport: Transport, clientName: string): Promise<Concurrent> {
  const client = new Client({ name: clientName, version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  try {
    const order: string[] = [];
    const progressMs: number[] = [];
    const t0 = Date.now();
    let longMs = 0;
    await Promise.all([
      client
        .callTool({ name: 'trigger-long-running-operation', arguments: LONG_ARGS }, undefined, {
          onprogress: () => progressMs.push(Date.now() - t0),
        })
        .then(() => {
          longMs = Date.now() - t0;
          order.push('long');
        }),
      client.callTool({ name: 'echo', arguments: { message: 'fast' } }).then(() => order.push('fast')),
    ]);
    return { order, longMs, progressMs };
  } finally {
    if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
}

describe('replay keeps the recorded timing', () => {
  let peer: RunningPeer;
  let scope: Mcpscope;
  let live: Concurrent;
  let recordedLatency: number;
  let recordedProgress: number[];
  let dir: string;
  let fixturePath: string;

  beforeAll(async () => {
    peer = await startEverythingServer('streamableHttp');
    scope = await startMcpscope({ target: peer.url, port: 0, uiPort: false });
    live = await concurrentCalls(new StreamableHTTPClientTransport(new URL(scope.proxy.url)), 'timing-recording');
    const fixture = await fixtureOf(scope, 'timing-recording');
    const longReq = fixture.messages.find((m) => m.kind === 'request' && m.name === 'trigger-long-running-operation')!;
    recordedLatency = fixture.messages.find((m) => m.kind === 'response' && m.pair === longReq.seq)!.t - longReq.t;
    recordedProgress = fixture.messages
      .filter((m) => m.method === 'notifications/progress' && m.pair === longReq.seq)
      .map((m) => m.t - longReq.t);
    dir = mkdtempSync(join(tmpdir(), 'mcpscope-replay-timing-'));
    fixturePath = join(dir, 'concurrent.fixture.json');
    writeFileSync(fixturePath, JSON.stringify(fixture, null, 2));
  });
  afterAll(async () => {
    await scope?.close();
    await peer?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the recording: the fast echo completed first, three progress notifications along the way', () => {
    expect(live.order).toEqual(['fast', 'long']);
    expect(recordedProgress).toHaveLength(3);
    expect(recordedLatency).toBeGreaterThanOrEqual(1_400);
  });

  /** Lower bounds only (a timer never fires early), at half the recorded times: no flakiness on a busy machine. */
  function expectRecordedPace(replayed: Concurrent): void {
    expect(replayed.order).toEqual(live.order);
    expect(replayed.longMs).toBeGreaterThanOrEqual(recordedLatency * 0.5);
    expect(replayed.progressMs).toHaveLength(3);
    replayed.progressMs.forEach((ms, i) => expect(ms).toBeGreaterThanOrEqual(recordedProgress[i] * 0.5));
    expect(replayed.progressMs[2] - replayed.progressMs[0]).toBeGreaterThanOrEqual((recordedProgress[2] - recordedProgress[0]) * 0.5);
  }

  it('by default over HTTP: the same completion order as live, progress at its recorded pace', async () => {
    const replay = await startReplayCli([fixturePath]);
    try {
      expectRecordedPace(await concurrentCalls(new StreamableHTTPClientTransport(new URL(replay.url)), 'timing-replay'));
    } finally {
      await replay.stop();
    }
  });

  it('by default over stdio: the same', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'replay', fixturePath, '--stdio', '--quiet'],
      cwd: ROOT,
      stderr: 'pipe',
    });
    expectRecordedPace(await concurrentCalls(transport, 'timing-replay-stdio'));
  });

  it('--timing fast answers at once', async () => {
    const replay = await startReplayCli([fixturePath, '--timing', 'fast']);
    try {
      const fast = await concurrentCalls(new StreamableHTTPClientTransport(new URL(replay.url)), 'timing-replay-fast');
      expect(fast.order.sort()).toEqual(['fast', 'long']);
      expect(fast.progressMs).toHaveLength(3);
      // Generous: well under the recorded 1.5 s (at once, it takes a few ms).
      expect(fast.longMs).toBeLessThan(recordedLatency * 0.5);
    } finally {
      await replay.stop();
    }
  });

  it('--help documents --timing and keeps --speed as the older spelling', async () => {
    const r = await runCli(['replay', '--help'], 60_000);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--timing <t>');
    expect(r.stdout).toMatch(/--speed <x> +older spelling/);
    const both = await runCli(['replay', fixturePath, '--timing', '1', '--speed', '1'], 60_000);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--timing or --speed, not both');
  });
});
