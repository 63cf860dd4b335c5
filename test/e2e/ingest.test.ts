/**
 * proxy/serve/ingest.ts before a socket has proven the token: anyone on this machine can open a
 * challenge socket on the UI port without it, so what such a socket may hold is bounded — at most
 * MAX_UNPROVEN wait at once, and none may send a message over 1 KiB before its proof (a hello and
 * an auth are ~100 bytes). A real mcpscope UI on an OS-picked port, ws clients.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { startMcpscope, type McpscopeCore } from '../../proxy/mcpscope.js';
import { MAX_UNPROVEN } from '../../proxy/serve/ingest.js';
import { ingestAuth } from '../../proxy/stdio/ingest-control.js';

let scope: McpscopeCore;
beforeAll(async () => {
  scope = await startMcpscope({ uiPort: 0 });
});
afterAll(async () => {
  await scope?.close();
});

interface Challenger {
  ws: WebSocket;
  /** The close code, once closed. */
  closed: Promise<number>;
  /** The next text message. */
  next(): Promise<Record<string, unknown>>;
}

/** A socket the wrapper's way (no token, the challenge header), open. */
async function challenger(): Promise<Challenger> {
  const ws = new WebSocket(`ws://127.0.0.1:${scope.ui!.port}/ingest`, { headers: { 'x-mcpscope-ingest-auth': 'challenge' } });
  const inbox: Record<string, unknown>[] = [];
  const waiting: ((m: Record<string, unknown>) => void)[] = [];
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString()) as Record<string, unknown>;
    const w = waiting.shift();
    if (w) w(m);
    else inbox.push(m);
  });
  ws.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  return { ws, closed, next: () => (inbox.length > 0 ? Promise.resolve(inbox.shift()!) : new Promise((r) => waiting.push(r))) };
}

/** Says hello and resolves with the UI's nonce from its proof. */
async function hello(c: Challenger): Promise<string> {
  c.ws.send(JSON.stringify({ type: 'hello', nonce: randomBytes(32).toString('base64url') }));
  const proof = await c.next();
  expect(proof.type).toBe('proof');
  return proof.nonce as string;
}

describe('/ingest before the proof of the token', () => {
  it(`lets ${MAX_UNPROVEN} sockets wait for their proof at once, cuts one more at once, and takes it again once one has proven itself`, async () => {
    const waiting = await Promise.all(Array.from({ length: MAX_UNPROVEN }, () => challenger()));
    try {
      // One more: cut at once, with no close frame (before, it was kept for AUTH_MS, then closed 1008).
      const extra = new WebSocket(`ws://127.0.0.1:${scope.ui!.port}/ingest`, { headers: { 'x-mcpscope-ingest-auth': 'challenge' } });
      extra.on('error', () => undefined);
      expect(await new Promise<number>((resolve) => extra.once('close', (code) => resolve(code)))).toBe(1006);
      // One of them proves the token: the UI sends its rules, and has room again.
      const first = waiting[0];
      const nonce = await hello(first);
      first.ws.send(JSON.stringify({ type: 'auth', hmac: ingestAuth(scope.token, nonce) }));
      expect((await first.next()).type).toBe('breakpoints');
      const again = await challenger();
      expect((await hello(again)).length).toBeGreaterThan(0);
      again.ws.terminate();
    } finally {
      for (const c of waiting) c.ws.terminate();
      // Until the UI has seen them go (the next test needs a free place).
      for (const deadline = Date.now() + 5_000; scope.ui!.ingest!.connections > 0 && Date.now() < deadline;)
        await new Promise((r) => setTimeout(r, 10));
    }
  });

  it('closes a socket that sends more than 1 KiB before its proof, without reading it', async () => {
    const c = await challenger();
    await hello(c);
    c.ws.send(JSON.stringify({ type: 'auth', hmac: 'x'.repeat(2048) }));
    expect(await c.closed).toBe(1009);
  });
});
