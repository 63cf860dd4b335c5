/**
 * proxy/app/serve/ingest.ts before a socket has proven the token: anyone on this machine can open a
 * challenge socket on the UI port without it, so what such a socket may hold is bounded — at most
 * MAX_UNPROVEN wait at once, and none may send a message over 1 KiB before its proof (a hello and
 * an auth are ~100 bytes). And what a wrapper writing a --log gets back: the events of its own
 * processes, in this UI's numbers, and how many of its records are recorded. A real mcpscope UI
 * on an OS-picked port, ws clients.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { startMcpscope, type McpscopeCore } from '../../proxy/app/mcpscope.js';
import { MAX_UNPROVEN } from '../../proxy/app/serve/ingest.js';
import { ingestAuth } from '../../proxy/app/stdio/ingest-control.js';
import { connectIngest } from '../../proxy/app/stdio/ingest-client.js';
import { encodeBatch, type IngestRecord } from '../../proxy/wire/capture/wire-codec.js';
import { eventSession } from '../../proxy/recorder/store/event-store.js';
import type { McpscopeEvent } from '../../proxy/core/model/events.js';

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

describe('/ingest for a wrapper that writes a --log', () => {
  it('sends it the events of its own processes in this UI’s numbers, and how many of its records are recorded; nothing to one that did not ask', async () => {
    const start = (xid: string, command: string): IngestRecord => ({ t: 'stdio-start', xid, ts: Date.now(), command, args: [], cwd: '/' });
    const line = (xid: string, dir: 'c2s' | 's2c', v: unknown): IngestRecord => ({
      t: 'stdio-chunk',
      xid,
      ts: Date.now(),
      dir,
      chunk: new TextEncoder().encode(`${JSON.stringify(v)}\n`),
    });
    const link = async (log: boolean) => {
      const r = await connectIngest('127.0.0.1', scope.ui!.port, scope.token, 3_000, { log });
      if (!r.ok) throw new Error(r.message);
      expect(r.records).toBe(true);
      const got: { through?: number; events: McpscopeEvent[] }[] = [];
      const waiters = new Set<() => void>();
      r.listen((text) => {
        const m = JSON.parse(text) as { type: string; through?: number; events: McpscopeEvent[] };
        if (m.type === 'recorded') got.push(m);
        for (const w of waiters) w();
      });
      const until = (check: () => boolean) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no such word from the UI: ${JSON.stringify(got)}`)), 5_000);
          const w = () => {
            if (!check()) return;
            clearTimeout(timer);
            waiters.delete(w);
            resolve();
          };
          waiters.add(w);
          w();
        });
      return { ws: r.ws, got, until };
    };
    const quiet = await link(false);
    const follower = await link(true);
    try {
      // The one that did not ask records a process first: its numbers come before the follower's.
      quiet.ws.send(encodeBatch([start('q', 'quiet-server'), line('q', 'c2s', { jsonrpc: '2.0', id: 1, method: 'ping' })]));
      await scope.waitFor((s) => [...s.sessions.values()].find((x) => x.target === 'quiet-server' && s.messages(x.id).length === 1));
      const records = [start('p', 'followed-server'), line('p', 'c2s', { jsonrpc: '2.0', id: 1, method: 'ping' })];
      follower.ws.send(encodeBatch(records));
      follower.ws.send(encodeBatch([line('p', 's2c', { jsonrpc: '2.0', id: 1, result: {} })]));
      await follower.until(() => follower.got.some((m) => m.through === 3));
      const session = [...scope.store.sessions.values()].find((x) => x.target === 'followed-server')!;
      const events = follower.got.flatMap((m) => m.events);
      // Only its own session's events, with this UI's ids and seqs, in order.
      expect(new Set(events.map(eventSession))).toEqual(new Set([session.id]));
      const messages = events.filter((e) => e.type === 'message');
      expect(messages.map((m) => m.seq)).toEqual(scope.store.messages(session.id).map((m) => m.seq));
      expect(messages.map((m) => m.seq)).toEqual([...messages.map((m) => m.seq)].sort((a, b) => a - b));
      // `through` never goes back, and never past what the socket brought (its records, in two batches).
      const throughs = follower.got.flatMap((m) => (m.through === undefined ? [] : [m.through]));
      expect(throughs).toEqual([...throughs].sort((a, b) => a - b));
      expect(Math.max(...throughs)).toBe(3);
      expect(quiet.got).toEqual([]);
    } finally {
      quiet.ws.terminate();
      follower.ws.terminate();
    }
  });
});
