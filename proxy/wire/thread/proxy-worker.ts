/**
 * The proxy thread: every proxy port of one mcpscope runs here, in a worker thread of its own,
 * so that nothing the main thread does (parsing, correlation, the store, the UI server and its
 * feed) can ever delay a forwarded byte. The hot path's capture is a push into this thread's
 * CaptureQueue; every few milliseconds its batch is packed (chunks copied into one buffer) and
 * transferred to the main thread, where the recorder takes it. Batches the main thread has not
 * yet taken count against the queue's byte cap: past it, chunks are dropped from capture (never
 * from the traffic) and an `overflow` record says so.
 *
 * Started by proxy/wire/thread/proxy-thread.ts; the protocol is in proxy-thread-messages.ts. This
 * module names no feature: the worker's entry (proxy/app/proxy-worker-entry.ts) calls
 * runProxyWorker with the addons' proxy-thread halves (thread-addon.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readlinkSync } from 'node:fs';
import { CaptureQueue } from '../capture/capture-queue.js';
import { packRecords } from '../capture/record-transfer.js';
import { BodyLimit } from '../capture/body-limit.js';
import type { WireRecord } from '../capture/wire-records.js';
import type { ThreadAddon, ThreadAddonRunning } from './thread-addon.js';
import { startProxyServer, type ProxyServer } from '../reverse-proxy/proxy-server.js';
import { setExchangeIdPrefix } from '../forwarder/exchange-ids.js';
import { cutConnections, drainServers, markShuttingDown } from '../forwarder/drain.js';
import type { FromProxyThread, ProxyThreadConfig, ToProxyThread } from './proxy-thread-messages.js';
import { installInProxyThread, TEST_THROW_HEADER } from '../last-resort.js';

/** Chunk bytes captured but not yet taken by the main thread, at most (default). */
const MAX_BEHIND_BYTES = 16 * 1024 * 1024;

/** This thread's kernel id (Linux: /proc/thread-self → <pid>/task/<tid>), or undefined elsewhere. */
function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** Runs this worker's proxy ports with `threadAddons`' steps (called once, by the worker's entry). */
export async function runProxyWorker(threadAddons: readonly ThreadAddon[]): Promise<void> {
  const port = parentPort!;
  const config = workerData as ProxyThreadConfig;
  if (config.idPrefix) setExchangeIdPrefix(config.idPrefix);
  const say = (m: FromProxyThread, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer);
  // An exception nothing caught (a bug in a callback of one connection) is told to the main thread,
  // which says and records it; the thread goes on forwarding the others, unless it is fatal.
  installInProxyThread((m) => say(m));

  /** Chunk bytes posted to the main thread and not yet taken there (it subtracts what it takes). */
  const inFlight = new BigInt64Array(config.inFlight ?? new SharedArrayBuffer(8));
  // Past --max-body, a non-SSE body is counted and hashed here (on the batch, not per chunk)
  // instead of being handed over.
  const limit = new BodyLimit(config.maxBodyBytes);
  const queue = new CaptureQueue(
    (records) => {
      const batch = packRecords(limit.apply(records));
      Atomics.add(inFlight, 0, BigInt(batch.bytes.byteLength));
      say({ type: 'records', batch }, [batch.bytes]);
    },
    // Records wait up to 5 ms so that an exchange's records usually cross in one message: each
    // postMessage costs both threads a wake-up, and the recording is not in a hurry. Big bodies
    // cross in messages of about 64 KiB: many small buffers come and go more cheaply (in RSS) than
    // a few large ones. The recorder may fall MAX_BEHIND_BYTES behind; past that, chunk bytes are
    // left out of the capture (an `overflow` record says so), never out of the traffic.
    {
      maxQueuedBytes: config.maxQueuedBytes ?? MAX_BEHIND_BYTES,
      pendingBytes: () => Number(Atomics.load(inFlight, 0)),
      delayMs: 5,
      flushAtBytes: 64 * 1024,
    },
  );
  const record = config.record === false ? () => undefined : (r: WireRecord) => queue.push(r);
  const capture =
    process.env.MCPSCOPE_TEST_THROW === 'proxy-thread'
      ? (r: WireRecord) => {
          // Tests only: a callback of this one connection throws, outside every catch (proxy/wire/last-resort.ts).
          if (r.t === 'request' && r.headers[TEST_THROW_HEADER] !== undefined)
            setImmediate(() => {
              throw new Error(`test hook: thrown in a callback of exchange ${r.xid} (MCPSCOPE_TEST_THROW=proxy-thread)`);
            });
          record(r);
        }
      : record;

  /** The addons' proxy-thread halves, started in the order their steps run at each wire stage. */
  const running = new Map<string, ThreadAddonRunning>();
  for (const addon of threadAddons)
    running.set(
      addon.name,
      addon.start({
        options: config.addons?.[addon.name],
        capture,
        flush: () => queue.flush(),
        tell: (body) => say({ type: 'addon', addon: addon.name, body }),
        taken: (id, serial) => say({ type: 'rule-taken', addon: addon.name, id, serial }),
      }),
    );
  const addons = [...running.values()].map((a) => a.steps);
  /** The index of each addon's steps in a server's `steps` (they are made in the addons' order). */
  const stepIndex = new Map([...running.keys()].map((name, i) => [name, i]));

  const servers: (ProxyServer | undefined)[] = [];

  async function start(): Promise<void> {
    let nextPort = config.port ?? 0;
    for (const u of config.upstreams) {
      const p = u.port ?? nextPort;
      const server = await startProxyServer({
        target: u.target,
        name: u.name,
        host: config.host,
        port: p,
        capture,
        rewrite: config.rewrite,
        allowOrigins: config.allowOrigins,
        allowHosts: config.allowHosts,
        upstreamCa: config.upstreamCa,
        addons,
      });
      servers.push(server);
      nextPort = p === 0 ? 0 : server.port + 1;
    }
    if (config.forward) {
      // Loaded only when asked for: the CA and TLS modules cost a reverse-only proxy nothing.
      const { startForwardServer } = await import('../forward-proxy/forward-server.js');
      const f = config.forward;
      servers.push(
        await startForwardServer({
          host: config.host,
          port: f.port ?? 0,
          capture,
          addons,
          ca: f.ca,
          intercept: f.intercept,
          upstreamCa: f.upstreamCa,
        }),
      );
    }
  }

  port.on('message', (m: ToProxyThread) => {
    switch (m.type) {
      case 'rules': {
        running.get(m.addon)?.rules?.(m.entries);
        const i = stepIndex.get(m.addon);
        if (i !== undefined) for (const s of servers) s?.steps[i]?.rulesChanged?.();
        break;
      }
      case 'addon':
        running.get(m.addon)?.receive?.(m.body);
        break;
      case 'sync':
        queue.flush();
        say({ type: 'synced', n: m.n });
        break;
      case 'drain': {
        const live = servers.filter((s): s is ProxyServer => s !== undefined).map((s) => s.app.server);
        void drainServers(live, m.graceMs, (now) => say({ type: 'draining', n: m.n, calls: now.calls, streams: now.streams })).then(
          ({ cut }) => {
            // What is still open is cut by the close that follows: recorded as mcpscope's doing.
            markShuttingDown(m.reason);
            queue.flush();
            say({ type: 'drained', n: m.n, cut });
          },
        );
        break;
      }
      case 'close': {
        const closing = m.index === undefined ? servers.map((_, i) => i) : [m.index];
        void Promise.all(
          closing.map((i) => {
            const s = servers[i];
            servers[i] = undefined;
            // Clients first: what they were in the middle of is recorded as cut by mcpscope, not
            // (as the upstream agent is destroyed next) as a failed upstream answered 502.
            return (
              s &&
              cutConnections([s.app.server])
                .then(() => s.close())
                .catch(() => undefined)
            );
          }),
        ).then(() => {
          queue.flush();
          say({ type: 'closed', n: m.n });
          if (servers.every((s) => s === undefined)) {
            queue.close();
            port.close();
          }
        });
        break;
      }
    }
  });

  try {
    await start();
    say({
      type: 'ready',
      endpoints: servers.map((s, i) => ({
        origin: s!.origin,
        url: s!.url,
        port: s!.port,
        ...(i >= config.upstreams.length ? { forward: true } : {}),
      })),
      tid: threadId(),
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    await Promise.all(servers.map((s) => s?.close().catch(() => undefined)));
    say({ type: 'failed', message: e.message, code: e.code });
    port.close();
  }
}
