/**
 * `mcpscope replay` serving a client older than the recording (issue 28, item 3). The demo fixture
 * was recorded with a 2025-11-25 client (initialize answered 2025-11-25). A client that only
 * speaks 2025-06-18 — like Gemini CLI, whose SDK knows nothing newer — asks for 2025-06-18: the
 * replay answers 2025-06-18, as the official SDK's server did with it, and says on stderr that it
 * negotiated down; tools/list and tools/call are then answered from the recording although their
 * MCP-Protocol-Version header (2025-06-18) is not the recorded one. A client asking for the
 * recorded version gets the recorded answer unchanged; one asking for a newer or an unknown
 * version gets the recorded version. Real sockets on 127.0.0.1; the CLI parts run the built CLI
 * (`npx tsc -p tsconfig.build.json` first; `npm test` builds).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Fixture } from '../../proxy/core/model/fixture-format.js';
import { startMockServer, type MockServer } from '../../proxy/files/replay/replay-server.js';
import { BIN, ROOT } from '../support/fixture-cli.js';
import { watchText, type TextWatch } from '../support/text-watch.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'demo-client-round.fixture.json');
const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Fixture;
const recordedInit = fixture.messages.find(
  (m) => m.dir === 's2c' && m.pair === fixture.messages.find((x) => x.message.method === 'initialize')?.seq,
);
const RECORDED_RESULT = recordedInit?.message.result as Record<string, unknown>;

/** What an SDK that stops at 2025-06-18 accepts (@modelcontextprotocol/sdk before 2025-11-25 was added). */
const OLD_SDK_VERSIONS = ['2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

/**
 * Makes a transport speak as a client whose SDK knows nothing newer than 2025-06-18: its
 * initialize asks for 2025-06-18, and a server answering a version outside OLD_SDK_VERSIONS is
 * refused the way that SDK refuses it (connect throws). `negotiated()` is the version it settled on.
 */
function speakOnly0618<T extends Transport>(transport: T): T & { negotiated(): string | undefined } {
  let negotiated: string | undefined;
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) =>
    send(
      'method' in message && message.method === 'initialize'
        ? { ...message, params: { ...message.params, protocolVersion: '2025-06-18' } }
        : message,
      options,
    );
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version: string) => {
    if (!OLD_SDK_VERSIONS.includes(version)) throw new Error(`Server's protocol version is not supported: ${version}`);
    negotiated = version;
    setVersion?.(version);
  };
  return Object.assign(transport, { negotiated: () => negotiated });
}

/** A fetch that keeps each request's method and MCP-Protocol-Version header. */
function headerTap(): { fetch: typeof fetch; seen: { method: string; version: string | null }[] } {
  const seen: { method: string; version: string | null }[] = [];
  return {
    seen,
    fetch: (url, init) => {
      if (init?.method === 'POST' && typeof init.body === 'string') {
        const body = JSON.parse(init.body) as { method?: string };
        seen.push({ method: body.method ?? '(response)', version: new Headers(init.headers).get('mcp-protocol-version') });
      }
      return fetch(url, init);
    },
  };
}

/** A raw initialize over HTTP asking for `protocolVersion`, answered as JSON: its result. */
async function initializeResult(url: string, protocolVersion: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: Record<string, unknown> }).result;
}

/** `mcpscope replay <fixture> --port 0 --timing fast --quiet`: its URL and what it writes on stderr. */
async function startReplay(): Promise<{ url: string; stderr: TextWatch; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [BIN, 'replay', FIXTURE, '--port', '0', '--timing', 'fast', '--quiet'], { cwd: ROOT });
  const stderr = watchText(child.stderr, 'mcpscope replay stderr');
  const stdout = watchText(child.stdout, 'mcpscope replay stdout');
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`replay exited with ${code}: ${stderr.text()}`))),
  );
  const [url] = await Promise.race([stdout.match(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/m), exited]);
  return {
    url,
    stderr,
    async stop() {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await gone;
    },
  };
}

/** A RegExp matching `text` literally. */
const literally = (text: string) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

const NEGOTIATED_DOWN = "negotiated 2025-06-18, recorded 2025-11-25: answers are the recording's as they were";

describe('mcpscope replay and a client older than the recording', () => {
  let replay: Awaited<ReturnType<typeof startReplay>>;
  beforeAll(async () => {
    expect(RECORDED_RESULT.protocolVersion).toBe('2025-11-25');
    replay = await startReplay();
  });
  afterAll(async () => {
    await replay?.stop();
  });

  it('a 2025-06-18 SDK client gets 2025-06-18, then tools/list and tools/call from the recording; stderr says it negotiated down', async () => {
    const tap = headerTap();
    const transport = speakOnly0618(new StreamableHTTPClientTransport(new URL(replay.url), { fetch: tap.fetch }));
    const client = new Client({ name: 'older-client', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    try {
      expect(transport.negotiated()).toBe('2025-06-18');
      // Everything else of the initialize answer is the recorded one.
      expect(client.getServerVersion()).toEqual(RECORDED_RESULT.serverInfo);
      expect(client.getServerCapabilities()).toEqual(RECORDED_RESULT.capabilities);
      expect(client.getInstructions()).toBe(RECORDED_RESULT.instructions);

      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('echo');
      // Sent as recorded: `execution` is 2025-11-25's, which this client's version does not have.
      expect(tools.find((t) => t.name === 'echo')).toHaveProperty('execution', { taskSupport: 'forbidden' });
      const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello from round 1' } });
      expect(echo.content).toEqual([{ type: 'text', text: 'hello from round 1' }]);

      // The requests after initialize carried the negotiated version, not the recorded one, and still matched.
      const after = tap.seen.filter((s) => s.method !== 'initialize');
      expect(after.map((s) => s.method)).toEqual(['notifications/initialized', 'tools/list', 'tools/call']);
      expect(new Set(after.map((s) => s.version))).toEqual(new Set(['2025-06-18']));
    } finally {
      await transport.terminateSession();
      await client.close();
    }
    // Said even with --quiet, which keeps the per-request lines off.
    await replay.stderr.match(literally(`mcpscope replay: initialize: ${NEGOTIATED_DOWN}`));
    expect(replay.stderr.text()).not.toContain('answered from recorded seq');
  });

  it('over stdio too (mcpscope replay --stdio)', async () => {
    const transport = speakOnly0618(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'replay', FIXTURE, '--stdio', '--timing', 'fast'],
        cwd: ROOT,
        stderr: 'pipe',
      }),
    );
    const stderr = watchText(transport.stderr!, 'mcpscope replay --stdio stderr');
    const client = new Client({ name: 'older-client', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    try {
      expect(transport.negotiated()).toBe('2025-06-18');
      const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello from round 1' } });
      expect(echo.content).toEqual([{ type: 'text', text: 'hello from round 1' }]);
    } finally {
      await client.close();
    }
    await stderr.match(literally(NEGOTIATED_DOWN));
  });
});

describe('the mock server answering initialize (startMockServer)', () => {
  let mock: MockServer;
  const log: string[] = [];
  beforeAll(async () => {
    mock = await startMockServer(fixture, { timing: 'fast', log: (l) => log.push(l) });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('a client asking for the recorded version gets the recorded answer unchanged', async () => {
    log.length = 0;
    expect(await initializeResult(mock.url, '2025-11-25')).toEqual(RECORDED_RESULT);
    expect(log).toContain('  initialize: the client asked for 2025-11-25, the recorded version');
    // And the current SDK client, which asks for 2025-11-25, settles on it.
    const transport = new StreamableHTTPClientTransport(new URL(mock.url));
    const client = new Client({ name: 'current-client', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    expect(transport.protocolVersion).toBe('2025-11-25');
    await transport.terminateSession();
    await client.close();
  });

  it('a client asking for a newer or an unknown version gets the recorded version, as the recorded server would answer', async () => {
    for (const asked of ['2026-07-28', '2099-01-01']) {
      log.length = 0;
      expect(await initializeResult(mock.url, asked)).toEqual(RECORDED_RESULT);
      expect(log.join('\n')).toContain('answered 2025-11-25, the recorded version, as the recorded server would');
      expect(log.join('\n')).not.toContain('negotiated');
    }
  });

  it('each older version an SDK server accepts is answered with itself (the 2024-10-07 draft too), the rest of the answer as recorded', async () => {
    for (const asked of ['2024-10-07', '2024-11-05', '2025-03-26', '2025-06-18']) {
      log.length = 0;
      expect(await initializeResult(mock.url, asked)).toEqual({ ...RECORDED_RESULT, protocolVersion: asked });
      expect(log).toContain(
        `initialize: negotiated ${asked}, recorded 2025-11-25: answers are the recording's as they were (the client asked for ${asked}; anything the 2025-11-25 server put in them that ${asked} does not have is sent all the same)`,
      );
    }
  });
});
