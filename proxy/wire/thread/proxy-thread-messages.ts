/**
 * What the main thread and the proxy thread say to each other (proxy/wire/thread/proxy-thread.ts on
 * the main side, proxy/wire/thread/proxy-worker.ts on the proxy's side).
 */
import type { PackedBatch } from '../capture/record-transfer.js';
import type { CaMaterial } from '../forward-proxy/ca.js';
import type { ProxyThreadProblem } from '../last-resort.js';

/** The forward proxy's settings (proxy/wire/forward-proxy/forward-server.ts). */
export interface ForwardConfig {
  /** Its port (0: any free port). */
  port?: number;
  /** `--intercept` host patterns; none: decrypt every host. */
  intercept?: string[];
  /** PEM certificates trusted for upstream servers besides the system's (`--upstream-ca`). */
  upstreamCa?: string[];
  /** mcpscope's CA, which signs the leaf certificates, and where its certificate is. */
  ca: CaMaterial & { certPath: string };
}

/** How to start the proxy ports: plain data (it crosses to the worker as `workerData`). */
export interface ProxyThreadConfig {
  upstreams: { target: string; name?: string; port?: number }[];
  /** PEM certificates trusted for the reverse proxies' upstreams besides the system's (`--upstream-ca`). */
  upstreamCa?: string[];
  /** A forward proxy besides the reverse ones (its endpoint comes last, marked `forward`). */
  forward?: ForwardConfig;
  /** Port of the first upstream that names none; each next one gets the previous port + 1 (0: any). */
  port?: number;
  host?: string;
  rewrite?: boolean;
  allowOrigins?: string[];
  allowHosts?: string[];
  /** Chunk bytes captured but not yet taken by the main thread, past which chunks are dropped (recorded as `overflow`). Default 16 MiB. */
  maxQueuedBytes?: number;
  /** Body bytes handed to the recorder at most; past them a non-SSE body is counted and hashed on the proxy thread. */
  maxBodyBytes: number;
  /** Exchange ids start with this (default `x`); a restarted thread gets a new one. */
  idPrefix?: string;
  /** false: capture nothing (forwarding only; see McpscopeOptions.record). */
  record?: boolean;
  /**
   * One BigInt64 cell, shared: chunk bytes the proxy thread has handed over that the main thread
   * has not yet taken. The proxy thread adds a batch's bytes when it posts it; the main thread
   * subtracts them when it takes it — no acknowledgement message, so no extra wake-up of the proxy
   * thread per batch.
   */
  inFlight?: SharedArrayBuffer;
  /** Each addon's options for its proxy-thread half, by its name (proxy/wire/thread/thread-addon.ts). */
  addons?: Record<string, unknown>;
}

export interface ProxyEndpoint {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** The target URL as reached through the proxy (same path and query). */
  url: string;
  port: number;
  /** The forward proxy's port, not a reverse proxy in front of one target. */
  forward?: boolean;
}

/** Main thread → proxy thread. */
export type ToProxyThread =
  /** An addon's rules, whole (its RuleSet's entries); an empty list turns it off. */
  | { type: 'rules'; addon: string; entries: unknown[] }
  /** A message from an addon's main-thread link to its proxy-thread half (e.g. the user's action on a held message). */
  | { type: 'addon'; addon: string; body: unknown }
  /** Send what is captured now and answer `synced` with the same `n`. */
  | { type: 'sync'; n: number }
  /** Close one port (`index`) or all of them (then the thread ends). */
  | { type: 'close'; index?: number; n: number }
  /**
   * Shutdown: stop accepting connections and let the calls in flight finish, for up to `graceMs`
   * (proxy/wire/forwarder/drain.ts); answered `draining` at once (what it waits for), then `drained`.
   * `reason` is what exchanges still open afterwards are recorded as cut by.
   */
  | { type: 'drain'; graceMs: number; reason: string; n: number };

/** Proxy thread → main thread. */
export type FromProxyThread =
  | {
      type: 'ready';
      endpoints: ProxyEndpoint[];
      /** The proxy thread's kernel thread id (Linux), for yieldCpuToProxyThread. */ tid?: number;
    }
  | { type: 'failed'; message: string; code?: string }
  | { type: 'records'; batch: PackedBatch }
  /** A once-rule of an addon's was used up: the main thread removes it. */
  | { type: 'rule-taken'; addon: string; id: string; serial: number }
  /** A message from an addon's proxy-thread half to its main-thread link (e.g. a message is held at a breakpoint). */
  | { type: 'addon'; addon: string; body: unknown }
  | { type: 'synced'; n: number }
  | { type: 'closed'; n: number }
  | { type: 'draining'; n: number; calls: number; streams: number }
  /** The calls in flight finished, or the grace period ended with `cut` of them still running. */
  | { type: 'drained'; n: number; cut: number }
  /** An exception nothing caught on the proxy thread (proxy/wire/last-resort.ts): the thread goes on unless it is fatal. */
  | ProxyThreadProblem;
