/**
 * A message's name — the tool, prompt or resource it is about, which the store keeps beside the
 * JSON-RPC message and which search, the call views and the UI's timeline show — is redacted like
 * the message itself (issue 26, finding 7: a `resources/read` of `https://…?access_token=…` showed
 * in clear in /api/search, /api/messages/:seq and the feed, while exports and the agent redacted it).
 * Real SDK client, the demo server, mcpscope between them over 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemoServer, type DemoServer } from '../../proxy/app/demo/demo-server.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import type { MessageEvent, PausedEvent } from '../../proxy/core/model/events.js';
import { collectFeed, type CollectedFeed } from '../support/feed.js';

const TOKEN = 'name-redaction-test-token-0123456789';
const ACCESS = 'SECRET-uri-access-token-7e1f';
const KEY = 'SECRET-prompt-api-key-2c9d';
/** A GitHub token format, built at run time so that this file does not look like a leak. */
const GITHUB = ['ghp', '_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'].join('');
const URI = `https://docs.example.test/report?page=2&access_token=${ACCESS}`;
const TOOL = `fetch_${GITHUB}`;
const PROMPT = `summary api_key=${KEY}`;
const MARKERS = [ACCESS, KEY, GITHUB];

let demo: DemoServer;
let scope: Mcpscope;
let client: Client;
let feed: CollectedFeed;

const api = async (path: string): Promise<{ status: number; text: string }> => {
  const res = await fetch(`${scope.ui!.origin}${path}`, { headers: { 'x-mcpscope-token': TOKEN } });
  return { status: res.status, text: await res.text() };
};
const leaks = (text: string) => MARKERS.filter((m) => text.includes(m));

beforeAll(async () => {
  demo = await startDemoServer({ port: 0 });
  scope = await startMcpscope({ target: demo.url, port: 0, uiPort: 0, token: TOKEN });
  feed = collectFeed(scope.ui!.url);
  client = new Client({ name: 'name-redaction-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(scope.proxy.url)));
  // The demo knows none of them: each is answered with an error, which carries its request's name.
  await expect(client.readResource({ uri: URI })).rejects.toThrow();
  await client.callTool({ name: TOOL, arguments: {} }).catch(() => undefined);
  await expect(client.getPrompt({ name: PROMPT })).rejects.toThrow();
  await scope.settle();
  await feed.until((events) => events.filter((e) => e.type === 'message' && e.name !== undefined).length >= 6);
}, 60_000);

afterAll(async () => {
  feed?.close();
  await client?.close();
  await scope?.close();
  await demo?.close();
});

describe('message names', () => {
  it('are kept redacted, for requests and the answers that copy them', () => {
    const named = scope.store.snapshot().filter((e): e is MessageEvent => e.type === 'message' && e.name !== undefined);
    const byMethod = (method: string) => named.filter((m) => m.method === method).map((m) => [m.kind, m.name]);
    expect(byMethod('resources/read')).toEqual([
      ['request', 'https://docs.example.test/report?page=2&access_token=[redacted]'],
      ['error', 'https://docs.example.test/report?page=2&access_token=[redacted]'],
    ]);
    expect(byMethod('tools/call').map(([, name]) => name)).toEqual(['fetch_[redacted]', 'fetch_[redacted]']);
    expect(byMethod('prompts/get').map(([, name]) => name)).toEqual(['summary api_key=[redacted]', 'summary api_key=[redacted]']);
    // The message itself was redacted already; the name now agrees with it.
    const read = named.find((m) => m.method === 'resources/read' && m.kind === 'request')!;
    expect((read.jsonrpc as { params: { uri: string } }).params.uri).toBe(read.name);
  });

  it('reach no API answer, search hit or feed event in clear', async () => {
    const seqs = scope.store
      .snapshot()
      .filter((e): e is MessageEvent => e.type === 'message' && e.name !== undefined)
      .map((m) => m.seq);
    const answers = await Promise.all([
      api('/api/search?text=report'),
      api('/api/search?text=docs.example.test&order=oldest'),
      api('/api/search?method=tools/call'),
      api('/api/sessions'),
      api('/api/events'),
      ...seqs.map((seq) => api(`/api/messages/${seq}`)),
      ...seqs.map((seq) => api(`/api/calls/${seq}`)),
    ]);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(leaks(a.text), a.text.slice(Math.max(0, a.text.indexOf(ACCESS) - 300), a.text.indexOf(ACCESS) + 50)).toEqual([]);
    }
    const hits = JSON.parse(answers[0].text) as { hits: { name?: string; summary: string }[] };
    expect(hits.hits.length).toBeGreaterThan(0);
    for (const h of hits.hits) expect(h.name).toBe('https://docs.example.test/report?page=2&access_token=[redacted]');
    expect(leaks(JSON.stringify(feed.events))).toEqual([]);
    expect(feed.events.some((e) => e.type === 'message' && e.name === 'fetch_[redacted]')).toBe(true);
  });

  it('are searched as kept: the redacted name matches, the secret finds nothing', async () => {
    const byTool = async (tool: string) =>
      (JSON.parse((await api(`/api/search?tool=${encodeURIComponent(tool)}`)).text) as { hits: { seq: number }[] }).hits.length;
    expect(await byTool('fetch_[redacted]')).toBe(2);
    expect(await byTool(TOOL)).toBe(0);
    const byText = async (text: string) =>
      (JSON.parse((await api(`/api/search?text=${encodeURIComponent(text)}`)).text) as { hits: unknown[] }).hits.length;
    expect(await byText(ACCESS)).toBe(0);
    expect(await byText('access_token=[redacted]')).toBeGreaterThan(0);
  });

  it("are kept redacted in a held message's paused events too (the held message itself is given as it came)", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${scope.ui!.origin}${path}`, {
        method: 'POST',
        headers: { 'x-mcpscope-token': TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('/api/breakpoints', { match: { dir: 'c2s', method: 'resources/read' }, once: true })).status).toBe(201);
    const read = client.readResource({ uri: URI }).catch(() => undefined);
    const held = await scope.waitFor((st) => st.snapshot().find((e): e is PausedEvent => e.type === 'paused' && e.state === 'held'));
    expect(held.name).toBe('https://docs.example.test/report?page=2&access_token=[redacted]');
    expect((await post(`/api/paused/${held.pausedId}`, { action: 'resume' })).status).toBe(200);
    await read;
    await scope.settle();
    const paused = scope.store.snapshot().filter((e): e is PausedEvent => e.type === 'paused');
    expect(paused.map((e) => [e.state, e.name])).toEqual([
      ['held', held.name],
      ['released', held.name],
    ]);
    expect(leaks(JSON.stringify(feed.events))).toEqual([]);
  });
});
