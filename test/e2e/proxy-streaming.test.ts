/**
 * Streaming transparency over real sockets: events are forwarded the moment they are written,
 * SSE headers are flushed before the first event, client disconnects reach the upstream, the
 * legacy endpoint event is rewritten even when it arrives one byte at a time, and the dialects
 * of other SDKs (wire samples) are recorded correctly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { request, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { deferred, once, startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';
import type { MessageEvent, ModificationEvent, ProblemEvent, SseFrameEvent } from '../../proxy/core/model/events.js';

const sample = (name: string) => readFileSync(new URL(`../fixtures/wire-samples/${name}`, import.meta.url));

let upstream: ScriptedUpstream | undefined;
let scope: Mcpscope | undefined;
afterEach(async () => {
  await scope?.close();
  await upstream?.close();
  scope = undefined;
  upstream = undefined;
});

function get(url: string, headers: Record<string, string> = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false }, resolve);
    req.on('error', reject);
    req.end();
  });
}

function readAll(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

/** Writes `bytes` one byte per event-loop turn, so they cross the proxy in many chunks. */
async function trickle(res: import('node:http').ServerResponse, bytes: Buffer): Promise<void> {
  for (let i = 0; i < bytes.length; i++) {
    res.write(bytes.subarray(i, i + 1));
    await new Promise<void>((r) => setImmediate(r));
  }
}

describe('streaming through the proxy', () => {
  it('flushes SSE headers before the first event and delivers each event before the next is written', async () => {
    const log: string[] = [];
    const headersSeen = deferred();
    const received: (() => void)[] = [];
    const EVENTS = 5;
    upstream = await startScriptedUpstream({
      'GET /stream': async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.flushHeaders();
        // Nothing is written until the client has seen the headers: a proxy that holds
        // headers until the first body byte would deadlock here and fail the test.
        await headersSeen.promise;
        for (let i = 0; i < EVENTS; i++) {
          log.push(`write ${i}`);
          res.write(
            `event: message\nid: ${i}\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${i}}}\n\n`,
          );
          await new Promise((r) => setTimeout(r, 200));
        }
        res.end();
      },
    });
    scope = await startMcpscope({ target: `${upstream.origin}/stream`, port: 0, uiPort: 0 });
    const res = await get(`${scope.proxy.origin}/stream`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    headersSeen.resolve();
    let buffered = '';
    let count = 0;
    res.setEncoding('utf8');
    res.on('data', (text: string) => {
      buffered += text;
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const id = /id: (\d+)/.exec(buffered.slice(0, end))![1];
        log.push(`recv ${id}`);
        buffered = buffered.slice(end + 2);
        count += 1;
        received.splice(0).forEach((f) => f());
      }
    });
    await once<void>((cb) => res.on('end', cb), 'end of stream', 15_000);
    expect(count).toBe(EVENTS);
    // Every event reached the client before the upstream wrote the next one.
    const expected = Array.from({ length: EVENTS }, (_, i) => [`write ${i}`, `recv ${i}`]).flat();
    expect(log).toEqual(expected);

    const messages = await scope.waitFor((s) =>
      s.snapshot().filter((e) => e.type === 'message').length === EVENTS ? s.snapshot() : undefined,
    );
    const data = messages
      .filter((e): e is MessageEvent => e.type === 'message')
      .map((m) => (m.jsonrpc as { params: { data: number } }).params.data);
    expect(data).toEqual([0, 1, 2, 3, 4]);
  });

  it('closes the upstream request when the client aborts an SSE stream', async () => {
    const upstreamClosed = deferred<string>();
    upstream = await startScriptedUpstream({
      'GET /sse-forever': (req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': hello\n\n');
        res.on('close', () => upstreamClosed.resolve(res.writableFinished ? 'finished' : 'closed by peer'));
        void req;
      },
    });
    scope = await startMcpscope({ target: `${upstream.origin}/sse-forever`, port: 0, uiPort: 0 });
    const res = await get(`${scope.proxy.origin}/sse-forever`);
    await once<Buffer>((cb) => res.once('data', cb), 'first bytes');
    res.destroy();
    expect(await upstreamClosed.promise).toBe('closed by peer');
    const ex = await scope.waitFor((s) => [...s.exchanges.values()].find((x) => x.aborted === 'client'));
    expect(ex.url).toBe('/sse-forever');
  });

  it('passes an upstream reset on to the client and records it as the upstream breaking off', async () => {
    upstream = await startScriptedUpstream({
      'GET /sse': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"before reset"}}\n\n',
          () => {
            setImmediate(() => res.socket?.destroy());
          },
        );
      },
    });
    scope = await startMcpscope({ target: `${upstream.origin}/sse`, port: 0, uiPort: 0 });
    const res = await get(`${scope.proxy.origin}/sse`);
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    // The client sees what a direct connection shows: the first event, then a broken stream.
    await once<void>((cb) => res.on('close', () => cb()), 'client stream closed');
    expect(res.complete).toBe(false);
    expect(Buffer.concat(chunks).toString()).toContain('before reset');
    const ex = await scope.waitFor((s) => [...s.exchanges.values()].find((x) => x.aborted));
    expect(ex.aborted).toBe('upstream');
    const problem = await scope.waitFor((s) => s.snapshot().find((e): e is ProblemEvent => e.type === 'problem'));
    expect(problem.code).toBe('upstream-reset');
    // The event that arrived before the reset is recorded.
    expect(scope.store.snapshot().filter((e) => e.type === 'message')).toHaveLength(1);
  });

  it('aborts the upstream request when the client leaves before the response head arrives', async () => {
    const upstreamClosed = deferred<void>();
    const requestArrived = deferred<void>();
    upstream = await startScriptedUpstream({
      'POST /mcp': (_req, res) => {
        requestArrived.resolve();
        // Never answers: a long tool call returning JSON.
        res.on('close', () => upstreamClosed.resolve());
      },
    });
    scope = await startMcpscope({ target: `${upstream.origin}/mcp`, port: 0, uiPort: 0 });
    const req = request(`${scope.proxy.origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false });
    req.on('error', () => undefined);
    req.end('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}');
    await requestArrived.promise;
    req.destroy();
    await upstreamClosed.promise;
    const ex = await scope.waitFor((s) => [...s.exchanges.values()].find((x) => x.aborted === 'client'));
    expect(ex.method).toBe('POST');
  });
});

describe('legacy endpoint rewriting through the proxy', () => {
  it('rewrites an absolute upstream endpoint sent one byte at a time and records the modification', async () => {
    let body = Buffer.alloc(0);
    upstream = await startScriptedUpstream({
      'GET /sse': async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        await trickle(res, body);
        res.end();
      },
    });
    body = Buffer.from(sample('absolute-endpoint.sse').toString('utf8').replace('http://127.0.0.1:8000', upstream.origin));
    scope = await startMcpscope({ target: `${upstream.origin}/sse`, port: 0, uiPort: 0 });
    const text = (await readAll(await get(`${scope.proxy.origin}/sse`))).toString('utf8');
    expect(text).toBe(`event: endpoint\ndata: ${scope.proxy.origin}/messages/?session_id=abc123\n\n`);
    const mod = await scope.waitFor((s) => s.snapshot().find((e): e is ModificationEvent => e.type === 'modification'));
    expect(mod.what).toBe('endpoint-rewrite');
    expect(mod.before).toBe(`${upstream.origin}/messages/?session_id=abc123`);
    expect(mod.after).toBe(`${scope.proxy.origin}/messages/?session_id=abc123`);
    const session = await scope.waitFor((s) => [...s.sessions.values()].find((x) => x.endpoint));
    expect(session.transport).toBe('legacy-sse');
    expect(session.endpoint).toBe('/messages/?session_id=abc123');
  });

  it('passes a relative endpoint (Python SDK, CRLF, pings) byte for byte and records its messages in wire order', async () => {
    const wire = sample('python-legacy-sse-crlf.sse');
    upstream = await startScriptedUpstream({
      'GET /sse': async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        await trickle(res, wire);
        res.end();
      },
    });
    scope = await startMcpscope({ target: `${upstream.origin}/sse`, port: 0, uiPort: 0 });
    const got = await readAll(await get(`${scope.proxy.origin}/sse`));
    expect(got.equals(wire)).toBe(true);
    const events = await scope.waitFor((s) => {
      const ev = s.snapshot();
      return ev.some((e) => e.type === 'session' && e.session.status === 'closed') ? ev : undefined;
    });
    const messages = events.filter((e): e is MessageEvent => e.type === 'message');
    expect(messages.map((m) => [m.kind, m.id ?? m.method])).toEqual([
      ['response', 0],
      ['response', 1],
      ['notification', 'notifications/message'],
      ['notification', 'notifications/progress'],
      ['response', 3],
      ['response', 2],
    ]);
    expect(messages.every((m) => m.carrier === 'legacy-sse')).toBe(true);
    // Responses to requests mcpscope never saw are flagged, not dropped.
    expect(messages[0].hints.map((h) => h.code)).toContain('unknown-id');
    expect((messages[4].jsonrpc as { result: { content: { text: string }[] } }).result.content[0].text).toBe('结果: 11.0');
    const frames = events.filter((e): e is SseFrameEvent => e.type === 'sse');
    expect(frames.map((f) => f.what)).toEqual(['endpoint', 'comment']);
    expect(frames[1].comment).toBe(' ping - 2025-10-16 05:06:28.123456+00:00');
    expect(events.filter((e) => e.type === 'modification')).toEqual([]);
  });

  it('records a stream cut in the middle of an event as a truncated-stream problem', async () => {
    upstream = await startScriptedUpstream({
      'GET /sse': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('event: endpoint\ndata: /message?sessionId=1\n\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"res');
      },
    });
    scope = await startMcpscope({ target: `${upstream.origin}/sse`, port: 0, uiPort: 0 });
    await readAll(await get(`${scope.proxy.origin}/sse`));
    const problem = await scope.waitFor((s) => s.snapshot().find((e): e is ProblemEvent => e.type === 'problem'));
    expect(problem.code).toBe('truncated-stream');
    expect(problem.raw).toContain('"res');
  });
});
