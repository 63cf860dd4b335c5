/**
 * Issue 16, finding 3: WebSocket feed consumers that never read must not grow mcpscope's memory
 * without bound. A store holding ≈ 80 MB of events is streamed to 10 consumers that complete the
 * upgrade and then never read (raw TCP sockets, paused), and to one that reads. mcpscope runs from
 * dist/ alone in a child process (test/support/feed-child.mjs) so that its RSS is its own.
 * Before: the whole snapshot was queued per socket (RSS grew by ≈ 80 MB per stuck consumer).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import type { FeedMessage, McpscopeEvent } from '../../proxy/core/model/events.js';
import { fromFeed } from '../../proxy/core/model/feed-form.js';

const CHILD = fileURLToPath(new URL('../support/feed-child.mjs', import.meta.url));
const MiB = 1024 * 1024;
const SNAPSHOT_EVENTS = 10_000;
const EVENT_BYTES = 8_000;
const STUCK = 10;
const LIVE = 50;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Answer = Record<string, unknown>;

/** The child mcpscope: send a command line, get its JSON answer. */
async function startChild(): Promise<{ ui: string; token: string; ask(cmd: string): Promise<Answer>; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--expose-gc', CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
  cleanups.push(() => {
    if (child.exitCode === null) child.kill();
  });
  const lines = createInterface({ input: child.stdout! });
  const waiting: ((v: Answer) => void)[] = [];
  lines.on('line', (l) => waiting.shift()?.(JSON.parse(l) as Answer));
  const next = () =>
    new Promise<Answer>((resolve, reject) => {
      waiting.push(resolve);
      child.once('exit', (code) => reject(new Error(`feed child exited (${code})`)));
    });
  const ready = await next();
  return {
    ui: ready.ui as string,
    token: ready.token as string,
    child,
    ask(cmd: string) {
      const p = next();
      child.stdin!.write(`${cmd}\n`);
      return p;
    },
  };
}

/** A feed consumer that completes the WebSocket upgrade and then never reads another byte. */
function stuckConsumer(ui: string, token: string): Promise<Socket> {
  const u = new URL(ui);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname);
    cleanups.push(() => void socket.destroy());
    socket.on('error', reject);
    socket.write(
      `GET /ws?token=${encodeURIComponent(token)} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    // Read once, to see the 101; after that the socket is never read again (no 'data' listener,
    // paused mode: Node stops reading at its high-water mark and the kernel buffers fill up).
    socket.once('readable', () => {
      const head = String(socket.read() ?? '');
      if (!head.startsWith('HTTP/1.1 101')) return reject(new Error(`upgrade refused: ${head.slice(0, 200)}`));
      resolve(socket);
    });
  });
}

describe('feed memory with consumers that never read', () => {
  it(
    `${STUCK} stuck consumers of an ≈ 80 MB snapshot keep mcpscope's RSS growth under 200 MiB; a reading consumer gets the snapshot and live events in order`,
    { timeout: 120_000 },
    async () => {
      const scope = await startChild();
      cleanups.push(async () => {
        if (scope.child.exitCode === null) await scope.ask('close').catch(() => undefined);
      });
      const filled = await scope.ask(`fill ${SNAPSHOT_EVENTS} ${EVENT_BYTES}`);
      expect(filled.lastSeq).toBe(SNAPSHOT_EVENTS);
      const before = (await scope.ask('reset')).rss as number;

      for (let i = 0; i < STUCK; i++) await stuckConsumer(scope.ui, scope.token);

      // The reading consumer: pauses after its first snapshot message, while live events are
      // appended, so they arrive while its snapshot is still being streamed; then reads on.
      const ws = new WebSocket(`${scope.ui.replace('http', 'ws')}/ws?token=${encodeURIComponent(scope.token)}`);
      cleanups.push(() => ws.terminate());
      const kinds: string[] = [];
      const events: McpscopeEvent[] = [];
      let liveAppended: Promise<Answer> | undefined;
      const done = new Promise<void>((resolve, reject) => {
        ws.on('error', reject);
        ws.on('close', (code, reason) => reject(new Error(`feed closed: ${code} ${String(reason)}`)));
        ws.on('message', (data) => {
          const m = JSON.parse(String(data)) as FeedMessage;
          kinds.push(m.type);
          if (m.type === 'snapshot' || m.type === 'events') events.push(...m.events.map(fromFeed));
          if (m.type === 'snapshot' && liveAppended === undefined) {
            ws.pause();
            liveAppended = scope.ask(`live ${LIVE}`);
            void liveAppended.then(() => ws.resume());
          }
          if (events.length >= SNAPSHOT_EVENTS + LIVE) resolve();
        });
      });
      // Bounded: a consumer whose live events were lost would wait here forever.
      const delivered = await Promise.race([
        done.then(() => undefined),
        new Promise<Error>((resolve) => {
          const timer = setTimeout(
            () =>
              resolve(
                new Error(
                  `the reading consumer got ${events.length} of ${SNAPSHOT_EVENTS + LIVE} events in 60 s (messages: ${[...new Set(kinds)].join(', ')}; last seq ${events.at(-1)?.seq})`,
                ),
              ),
            60_000,
          );
          void done.then(
            () => clearTimeout(timer),
            () => clearTimeout(timer),
          );
        }),
      ]);

      const stats = await scope.ask('stats');
      const growth = ((stats.peakRss as number) - before) / MiB;
      expect(growth, `peak RSS grew by ${growth.toFixed(1)} MiB`).toBeLessThan(200);
      if (delivered) throw delivered;

      expect(kinds[0]).toBe('hello');
      expect(kinds).not.toContain('dropped');
      const snapshotEnd = kinds.lastIndexOf('snapshot');
      expect(kinds.slice(1, snapshotEnd + 1).every((k) => k === 'snapshot')).toBe(true);
      expect(kinds.slice(snapshotEnd + 1).every((k) => k === 'events')).toBe(true);
      // Every event once, in seq order: the snapshot's, then the live ones.
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: SNAPSHOT_EVENTS + LIVE }, (_, i) => i + 1));
      expect(events.slice(SNAPSHOT_EVENTS).map((e) => (e.type === 'log' ? e.text : e.type))).toEqual(
        Array.from({ length: LIVE }, (_, i) => `live ${i + 1}`),
      );
    },
  );
});
