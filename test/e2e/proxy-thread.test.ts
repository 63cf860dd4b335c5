/**
 * The proxy runs on its own thread: while mcpscope's main thread (recorder, store, UI, feed) is
 * stuck, traffic still flows, and the recording catches up afterwards with nothing lost.
 *
 * The upstream and the client live in a worker thread of this test process, so that blocking
 * this thread blocks mcpscope's main thread and nothing else that takes part.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';

const PEER = `
const { parentPort } = require('node:worker_threads');
const { createServer } = require('node:http');
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const { id, method } = JSON.parse(body);
    if (method === 'hang') return; // never answered
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'pong ' + id }] } }));
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ upstream: 'http://127.0.0.1:' + server.address().port + '/mcp' }));
parentPort.on('message', async ({ proxyUrl, calls, answered }) => {
  const counter = new Int32Array(answered);
  const done = [];
  for (let id = 1; id <= calls; id++) {
    const res = await fetch(proxyUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ping' } }) });
    const text = await res.json();
    done.push({ at: performance.timeOrigin + performance.now(), text: text.result.content[0].text });
    Atomics.add(counter, 0, 1);
    Atomics.notify(counter, 0);
  }
  parentPort.postMessage({ done });
  server.close();
});
`;

let scope: Mcpscope | undefined;
let peer: Worker | undefined;
afterEach(async () => {
  await scope?.close();
  await peer?.terminate();
  scope = peer = undefined;
});

describe('the proxy thread', () => {
  it('forwards while the main thread is blocked; the recording catches up afterwards, complete', async () => {
    peer = new Worker(PEER, { eval: true });
    const { upstream } = await new Promise<{ upstream: string }>((resolve) => peer!.once('message', resolve));
    scope = await startMcpscope({ target: upstream, port: 0, uiPort: false });
    const results = new Promise<{ done: { at: number; text: string }[] }>((resolve) => peer!.once('message', resolve));
    const CALLS = 20;
    const answered = new SharedArrayBuffer(4);
    const counter = new Int32Array(answered);
    const before = scope.store.size;
    const blockedAt = performance.timeOrigin + performance.now();
    peer.postMessage({ proxyUrl: scope.proxy.url, calls: CALLS, answered });

    // Block this thread (mcpscope's recorder, store and UI thread) until every call was answered,
    // or 10 s passed. The peer counts its answers in shared memory, which a blocked thread can
    // wait on (Atomics.wait sleeps until the count changes).
    const until = Date.now() + 10_000;
    for (let n = Atomics.load(counter, 0); n < CALLS && Date.now() < until; n = Atomics.load(counter, 0)) Atomics.wait(counter, 0, n, 100);
    const unblockedAt = performance.timeOrigin + performance.now();
    expect(scope.store.size).toBe(before); // nothing was recorded meanwhile: this thread was stuck

    const { done } = await results;
    expect(done.map((d) => d.text)).toEqual(Array.from({ length: CALLS }, (_, i) => `pong ${i + 1}`));
    // Every call was answered while this thread was blocked.
    for (const d of done) {
      expect(d.at).toBeGreaterThan(blockedAt);
      expect(d.at).toBeLessThan(unblockedAt);
    }
    await scope.settle();
    const responses = scope.store.snapshot().filter((e) => e.type === 'message' && e.kind === 'response');
    expect(responses).toHaveLength(CALLS);
    expect(scope.store.exchanges.size).toBe(CALLS);
  });

  it('record: false forwards and records nothing (the forward-only path of the benchmark)', async () => {
    peer = new Worker(PEER, { eval: true });
    const { upstream } = await new Promise<{ upstream: string }>((resolve) => peer!.once('message', resolve));
    scope = await startMcpscope({ target: upstream, port: 0, uiPort: false, record: false });
    const results = new Promise<{ done: { text: string }[] }>((resolve) => peer!.once('message', resolve));
    peer.postMessage({ proxyUrl: scope.proxy.url, calls: 3, answered: new SharedArrayBuffer(4) });
    expect((await results).done.map((d) => d.text)).toEqual(['pong 1', 'pong 2', 'pong 3']);
    await scope.settle();
    expect(scope.store.size).toBe(0);
  });

  it('a proxy thread that dies is started again on the same port, and the restart is recorded in plain words', async () => {
    peer = new Worker(PEER, { eval: true });
    const { upstream } = await new Promise<{ upstream: string }>((resolve) => peer!.once('message', resolve));
    scope = await startMcpscope({ target: upstream, port: 0, uiPort: false });
    const first = scope.proxyThread!.worker;
    // A call in flight when the thread dies: cut off, and recorded as such.
    const hanging = fetch(scope.proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'hang' }),
    }).then(
      () => 'answered',
      () => 'cut off',
    );
    await scope.waitFor((s) => s.exchanges.size === 1);
    const warned = new Promise<string>((resolve) => process.once('warning', (w) => resolve(w.message)));
    await first.terminate(); // as a crash would end it
    expect(await hanging).toBe('cut off');
    const cut = await scope.waitFor((s) => s.snapshot().find((e) => e.type === 'problem' && e.code === 'proxy-failed'));
    expect(cut.type === 'problem' && cut.text).toMatch(/proxy thread failed while this exchange was in flight/);
    const log = await scope.waitFor((s) => s.snapshot().find((e) => e.type === 'log' && /proxy thread/.test(e.text)));
    expect(log.type === 'log' && log.text).toMatch(/started it again on the same ports/);
    expect(await warned).toMatch(/started it again on the same ports/);
    expect(scope.proxyThread!.worker).not.toBe(first);
    // The same URL works again, and is recorded.
    const results = new Promise<{ done: { text: string }[] }>((resolve) => peer!.once('message', resolve));
    peer.postMessage({ proxyUrl: scope.proxy.url, calls: 2, answered: new SharedArrayBuffer(4) });
    expect((await results).done.map((d) => d.text)).toEqual(['pong 1', 'pong 2']);
    await scope.settle();
    expect(scope.store.exchanges.size).toBe(3);
  });
});
