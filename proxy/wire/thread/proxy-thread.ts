/**
 * Starts the proxy ports on their own thread (proxy/wire/thread/proxy-worker.ts) and brings what they
 * capture back to this thread's `capture` (the recorder's queue), batch by batch, in wire order.
 * The proxied bytes never wait for this thread: a busy recorder, a large feed flush or a GC pause
 * here delays the recording, not the traffic.
 */
import type { Worker } from 'node:worker_threads';
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { startWorker } from './start-worker.js';
import { unpackRecords } from '../capture/record-transfer.js';
import type { WireRecord } from '../capture/wire-records.js';
import type { AddonThread, ThreadAddonLink } from './thread-addon.js';
import type { FromProxyThread, ProxyEndpoint, ProxyThreadConfig, ToProxyThread } from './proxy-thread-messages.js';
import type { ProxyThreadProblem } from '../last-resort.js';

export type { ProxyEndpoint, ProxyThreadConfig };

export interface ProxyPort extends ProxyEndpoint {
  /** Stops this port (its open exchanges are closed). */
  close(): Promise<void>;
}

export interface ProxyThread {
  ports: ProxyPort[];
  /** Resolves once every record captured so far on the proxy thread has been handed to `capture`. */
  settle(): Promise<void>;
  /** Stops every port and ends the thread. */
  close(): Promise<void>;
  /**
   * Shutdown, before `close`: the ports stop accepting connections and the calls in flight get up
   * to `graceMs` to finish (proxy/wire/forwarder/drain.ts). `waiting` hears at once what it waits for.
   * Resolves with that and how many calls were still running at the end (`cut`, by the `close`).
   */
  drain(
    graceMs: number,
    reason: string,
    waiting?: (now: { calls: number; streams: number }) => void,
  ): Promise<{ calls: number; streams: number; cut: number }>;
  /** The worker running the ports now (tests end it to check the restart). */
  readonly worker: Worker;
  /** Its kernel thread id (Linux), for yieldCpuToProxyThread. */
  readonly tid: number | undefined;
}

/**
 * The worker runs on V8's default heap limits: an 8 MiB young generation costs 80–120 µs of CPU
 * per proxied call in scavenges and does not lower a 100 MiB body's RSS growth (docs/performance.md).
 */
function spawnWorker(entry: URL, config: ProxyThreadConfig): Worker {
  return startWorker(entry, { workerData: config });
}

interface Running {
  worker: Worker;
  endpoints: ProxyEndpoint[];
  tid: number | undefined;
  tell(m: ToProxyThread): void;
  /** Sends a request carrying a fresh `n` and resolves on its answer (or undefined when the thread is gone). */
  ask(m: (n: number) => ToProxyThread, progress?: (m: FromProxyThread) => void): Promise<FromProxyThread | undefined>;
  exit: Promise<void>;
}

/** What the proxy thread reports to, and is told by, on the main thread. */
export interface ProxyThreadDeps {
  /**
   * The worker's entry: a module that calls proxy-worker.ts's runProxyWorker with the addons'
   * proxy-thread halves (proxy/app/proxy-worker-entry.ts; its compiled `.js` URL).
   */
  entry: URL;
  capture: (record: WireRecord) => void;
  /** The addons' links to their proxy-thread halves (the same names as the entry's halves). */
  addons?: readonly ThreadAddonLink[];
  /** An unexpected error on the proxy thread (proxy/wire/last-resort.ts): to say and record. */
  onProblem?: (problem: ProxyThreadProblem) => void;
}

/** Starts one proxy thread and waits until its ports listen (or it says why they cannot). */
async function launch(config: ProxyThreadConfig, deps: ProxyThreadDeps): Promise<Running> {
  const inFlight = new BigInt64Array(new SharedArrayBuffer(8));
  const links = new Map((deps.addons ?? []).map((a) => [a.name, a]));
  const addonOptions = Object.fromEntries(
    (deps.addons ?? []).flatMap((a) => (a.threadOptions === undefined ? [] : [[a.name, a.threadOptions]])),
  );
  const worker = spawnWorker(deps.entry, { ...config, addons: addonOptions, inFlight: inFlight.buffer as SharedArrayBuffer });
  const tell = (m: ToProxyThread) => worker.postMessage(m);
  /** This thread as each addon's link sees it (one object per addon, per thread). */
  const threads = new Map(
    [...links.keys()].map((name): [string, AddonThread] => [name, { tell: (body) => tell({ type: 'addon', addon: name, body }) }]),
  );
  let n = 0;
  const waiting = new Map<number, (answer?: FromProxyThread) => void>();
  /** Interim answers (`draining`) to a request still waiting. */
  const progress = new Map<number, (m: FromProxyThread) => void>();
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      exited = true;
      for (const done of waiting.values()) done();
      waiting.clear();
      // What this thread held went with it.
      for (const [name, link] of links) link.ended?.(threads.get(name)!);
      resolve();
    }),
  );
  const ask = (m: (n: number) => ToProxyThread, onProgress?: (m: FromProxyThread) => void): Promise<FromProxyThread | undefined> => {
    if (exited) return Promise.resolve(undefined);
    n += 1;
    const asked = n;
    const p = new Promise<FromProxyThread | undefined>((resolve) =>
      waiting.set(asked, (answer) => {
        progress.delete(asked);
        resolve(answer);
      }),
    );
    if (onProgress) progress.set(asked, onProgress);
    tell(m(asked));
    return p;
  };
  // After it is running, a failure is reported by its exit (see startProxyThread).
  worker.on('error', () => undefined);

  let tid: number | undefined;
  const ready = new Promise<ProxyEndpoint[]>((resolve, reject) => {
    worker.on('message', (m: FromProxyThread) => {
      switch (m.type) {
        case 'records': {
          for (const r of unpackRecords(m.batch)) deps.capture(r);
          Atomics.sub(inFlight, 0, BigInt(m.batch.bytes.byteLength));
          break;
        }
        case 'rule-taken':
          links.get(m.addon)?.rules?.removeTaken(m.id, m.serial);
          break;
        case 'addon':
          links.get(m.addon)?.receive?.(m.body, threads.get(m.addon)!);
          break;
        case 'synced':
        case 'closed':
        case 'drained':
          waiting.get(m.n)?.(m);
          waiting.delete(m.n);
          break;
        case 'draining':
          progress.get(m.n)?.(m);
          break;
        case 'ready':
          tid = m.tid;
          resolve(m.endpoints);
          break;
        case 'failed':
          reject(Object.assign(new Error(m.message), m.code ? { code: m.code } : {}));
          break;
        case 'problem':
          deps.onProblem?.(m);
          break;
      }
    });
    worker.once('error', reject);
    void exit.then(() => reject(new Error('the proxy thread ended before its ports were listening')));
  });

  try {
    const endpoints = await ready;
    for (const { name, rules } of links.values())
      if (rules && rules.size > 0) tell({ type: 'rules', addon: name, entries: rules.entries() });
    return { worker, endpoints, tid, tell, ask, exit };
  } catch (err) {
    await worker.terminate();
    throw err;
  }
}

/**
 * If the proxy thread ends while it should be running (a crash), it is started again on the same
 * ports, once per failure, and `onRestart` says so in plain words (the CLI prints it; mcpscope
 * records it as a log event). Exchanges in flight at that moment are lost to their clients.
 */
export async function startProxyThread(
  config: ProxyThreadConfig,
  deps: ProxyThreadDeps & { onRestart?: (text: string) => void },
): Promise<ProxyThread> {
  let current = await launch(config, deps);
  const endpoints = current.endpoints;
  let closing = false;
  let restarts = 0;
  // Every change of an addon's rules goes to the thread running now.
  const stops = (deps.addons ?? []).flatMap(({ name, rules }) =>
    rules ? [rules.onChange(() => current.tell({ type: 'rules', addon: name, entries: rules.entries() }))] : [],
  );
  const stopSync = () => {
    for (const stop of stops) stop();
  };

  const watch = (running: Running) => {
    let failure: Error | undefined;
    running.worker.once('error', (err) => (failure = err));
    void running.exit.then(async () => {
      if (closing || running !== current) return;
      const why = failure ? `${failure.message}` : 'it stopped';
      // The same ports, so that clients pointed at them keep working.
      restarts += 1;
      const forwardPort = endpoints.find((e) => e.forward)?.port;
      const again = {
        ...config,
        idPrefix: `r${restarts}x`,
        upstreams: config.upstreams.map((u, i) => ({ ...u, port: endpoints[i]!.port })),
        ...(config.forward ? { forward: { ...config.forward, port: forwardPort } } : {}),
      };
      try {
        current = await launch(again, deps);
        watch(current);
        deps.onRestart?.(
          `The proxy thread failed (${why}); mcpscope started it again on the same ports. Requests in flight at that moment were cut off.`,
        );
      } catch (err) {
        deps.onRestart?.(
          `The proxy thread failed (${why}) and could not be started again: ${(err as Error).message}. The proxy ports are closed; restart mcpscope.`,
        );
      }
    });
  };
  watch(current);

  const closedPorts = new Set<number>();
  return {
    ports: endpoints.map((e, index) => ({
      ...e,
      close: () => {
        closedPorts.add(index);
        // With its last port closed the thread ends by itself: that is not a failure.
        if (closedPorts.size === endpoints.length) closing = true;
        return current.ask((n) => ({ type: 'close', index, n })).then(() => undefined);
      },
    })),
    settle: async () => void (await current.ask((n) => ({ type: 'sync', n }))),
    get worker() {
      return current.worker;
    },
    get tid() {
      return current.tid;
    },
    async drain(graceMs, reason, waiting) {
      // A thread that fails now is not started again: mcpscope is stopping.
      closing = true;
      let now = { calls: 0, streams: 0 };
      const answer = await current.ask(
        (n) => ({ type: 'drain', graceMs, reason, n }),
        (m) => {
          if (m.type !== 'draining') return;
          now = { calls: m.calls, streams: m.streams };
          waiting?.(now);
        },
      );
      return { ...now, cut: answer?.type === 'drained' ? answer.cut : now.calls };
    },
    async close() {
      closing = true;
      stopSync();
      await current.ask((n) => ({ type: 'close', n }));
      await current.worker.terminate();
      await current.exit;
    },
  };
}

/**
 * On Linux, setpriority(2) applies to one thread. This lowers every thread of mcpscope except the
 * proxy thread by `by` nice levels: the main thread (recorder, store, UI server, feed), V8's
 * helper threads (garbage collection, compilation) and libuv's pool, so that on a busy machine
 * the forwarding gets the CPU first and the recording catches up when there is CPU to spare.
 * Threads started later inherit the lowered priority from the main thread; a proxy thread started
 * again after a failure does too (it then shares the lower priority: an unprivileged process
 * cannot raise a thread back). The CLI calls it once the proxy thread runs. Library users (tests,
 * `mcpscope/testing`) are left alone: it would lower their own program's threads.
 * Returns the new nice value of the calling thread, or undefined where it does not apply (other
 * systems, or no proxy thread id: lowering the whole process would lower the proxy thread too).
 */
export function yieldCpuToProxyThread(thread: Pick<ProxyThread, 'tid'> | undefined, by = 10): number | undefined {
  if (process.platform !== 'linux' || thread?.tid === undefined) return undefined;
  try {
    const nice = Math.min(19, getPriority(0) + by);
    for (const task of readdirSync('/proc/self/task')) {
      const tid = Number(task);
      if (tid === thread.tid) continue;
      try {
        setPriority(tid, nice);
      } catch {
        /* a thread that ended meanwhile */
      }
    }
    return nice;
  } catch {
    return undefined;
  }
}
