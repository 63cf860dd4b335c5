/**
 * Assembles one running mcpscope: the proxy port (hot path: forward and capture), the capture
 * queue, the recorder (parse → correlate → annotate → redact), the store, and the UI port (API,
 * feed, and /ingest for stdio wrappers). Without a `target` there is no proxy port: a UI that
 * records only what stdio wrappers send it. See docs/architecture.md for the data flow.
 */
import type { LintMode } from '../core/lint/linter.js';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { CaptureQueue } from '../wire/capture/capture-queue.js';
import type { WireRecord } from '../wire/capture/wire-records.js';
import { Recorder } from '../recorder/recorder.js';
import { DEFAULT_MAX_BODY_BYTES } from '../core/parse/body-reader.js';
import { createRedactor } from '../recorder/redact/redact.js';
import { EventStore } from '../recorder/store/event-store.js';
import { startProxyThread, type ProxyPort, type ProxyThread } from '../wire/thread/proxy-thread.js';
import { startUiServer, type UiFeedOptions, type UiServer } from './serve/ui-server.js';
import { fixtureRoutes } from './serve/fixture-routes.js';
import { searchRoutes } from './serve/search-routes.js';
import type { McpscopeEvent } from '../core/model/events.js';
import { writeDiscovery } from './serve/discovery.js';
import { packageVersion } from '../files/package-version.js';
import type { LocalCa } from '../wire/forward-proxy/ca.js';
import { watchReachability } from '../recorder/reachability.js';
import { StdioLinks } from './stdio/stdio-send.js';
// Only types of telemetry: the OpenTelemetry SDK is loaded with import() when export is configured (addons/telemetry/telemetry-addon.ts).
import type { OtlpConfig, TelemetryStats } from '../addons/telemetry/otlp-options.js';
import type { FaultRegistry } from '../core/rules/fault-rules.js';
import type { BreakpointRegistry } from '../core/rules/breakpoint-rules.js';
import type { PausedRegistry } from '../addons/breakpoints/paused-registry.js';
import { hashSessionId } from '../wire/capture/session-hash.js';
import { startAddons, type StartedAddons } from '../addons/addon.js';
import { defaultAddons } from '../addons/default-addons.js';
import type { ApiStats } from '../core/model/api-stats.js';
import { recordUnexpectedErrors, reportFromProxyThread } from '../wire/last-resort.js';
import { tellIgnoredTlsEnv } from '../wire/forwarder/upstream-tls.js';

export { packageVersion };

/** The proxy thread's entry module (proxy/app/proxy-worker-entry.ts, compiled). */
const PROXY_WORKER_ENTRY = new URL('./proxy-worker-entry.js', import.meta.url);

export interface McpscopeOptions {
  /** Upstream MCP URL. Without one, no proxy port is opened (a UI for stdio wrappers only). */
  target?: string;
  /** Its name, when several upstreams share this UI. */
  targetName?: string;
  /**
   * More upstreams, each on its own proxy port, all recorded into the same store and UI
   * (`--target name=url` repeated). Port 0 = any free port; unset = the port after the previous one.
   */
  moreTargets?: { name?: string; target: string; port?: number }[];
  host?: string;
  /** Proxy port (0 = any free port). */
  port?: number;
  /** UI/API port (0 = any free port); `false` for no UI server. */
  uiPort?: number | false;
  /** UI/API token; a random one when unset. */
  token?: string;
  showSecrets?: boolean;
  /** Apply the documented rewrites (legacy endpoint event, OAuth metadata, Location). Default true; docs/transparency.md. */
  rewrite?: boolean;
  allowOrigins?: string[];
  allowHosts?: string[];
  /** Largest body/event parsed in full. */
  maxBodyBytes?: number;
  /** Events kept in memory before eviction (default 500,000; see EventStore). */
  maxEvents?: number;
  /** Approximate bytes of kept events before eviction (default 512 MiB). */
  maxMemoryBytes?: number;
  /** Append every event to this NDJSON file as it is recorded (see proxy/files/export/ndjson-recorder.ts). */
  recordFile?: string;
  /**
   * The annotated log (`--log`, proxy/files/export/log-writer.ts): every exchange and message as it is
   * recorded, to stdout, stderr or a file (created 0600), as text (`colour` unset: on a terminal,
   * unless NO_COLOR) or JSON lines. Always redacted as exports are.
   */
  log?: { to: 'stdout' | 'stderr' | string; format?: 'text' | 'json'; colour?: boolean };
  /**
   * Show MCP session ids (`Mcp-Session-Id`) as `sha256:<first 12 hex>` everywhere mcpscope keeps
   * them (SessionInfo.mcpSessionId, exchange headers, the UI, exports). Sessions still correlate:
   * the same id always hashes the same. The wire is untouched.
   */
  hashSessionIds?: boolean;
  /** Tuning of the WebSocket feed (see FeedOptions); defaults suit normal use. */
  feed?: UiFeedOptions;
  /**
   * Write `ui-<port>.json` (token, pid, URL) into $MCPSCOPE_HOME (default ~/.mcpscope) while the
   * UI runs, so that stdio wrappers started by a desktop client find its token (see
   * proxy/app/serve/discovery.ts). The CLI turns it on.
   */
  discoveryFile?: boolean;
  /** PEM certificates to trust for the reverse proxies' upstreams (`--target https://…`) besides the system's (`--upstream-ca`). */
  upstreamCa?: string[];
  /**
   * A forward proxy (HTTP_PROXY/HTTPS_PROXY) besides or instead of the reverse ones: the client
   * keeps the server's real URL; HTTPS is decrypted with mcpscope's CA ($MCPSCOPE_HOME/ca, made on
   * first use). See proxy/wire/forward-proxy/forward-server.ts.
   */
  forward?: {
    /** Its port (0: any free port; default 0). */
    port?: number;
    /** Host patterns to decrypt (`--intercept`); none: every host. */
    intercept?: string[];
    /** PEM certificates to trust for upstream servers besides the system's (`--upstream-ca`). */
    upstreamCa?: string[];
  };
  /**
   * `false`: forward only — nothing is captured, recorded or shown. Not for users (the proxy is
   * then a plain reverse proxy); the benchmark uses it to measure the pure forwarding cost.
   */
  record?: boolean;
  /**
   * Plain-words notices for a person watching the terminal, one line each (no newline): an
   * upstream that cannot be reached (once per upstream, until it answers again) — the CLI writes
   * them to stderr. Unset: nothing is said.
   */
  onNotice?: (line: string) => void;
  /** How long a message held at a breakpoint waits for the user before it resumes unchanged (ms; default 5 minutes). */
  holdMs?: number;
  /**
   * Live spec linting of every message (issue 19, docs/spec-lint.md): `warn` (default) records each
   * violation as a warning, `strict` as an error, `off` checks nothing.
   */
  lint?: LintMode;
  /** Model API calls (issue 27, docs/agent-view.md): `parse` (default) reads them as model turns; `plain` records them as plain HTTP. */
  modelTraffic?: 'parse' | 'plain';
  /**
   * OTLP export of spans and MCP metrics (issue 20, docs/team-setup.md), as resolved from `--otlp`,
   * `--otlp-bodies` and OTEL_* by proxy/addons/telemetry/otlp-options.ts (`resolveOtlpOptions`). Unset:
   * nothing of OpenTelemetry is loaded.
   */
  otlp?: OtlpConfig;
}

/** An mcpscope, with or without a proxy port. */
export interface McpscopeCore {
  /** The proxy port; only with a `target`. */
  proxy?: ProxyPort;
  /** Every proxy port: `proxy` first, then one per `moreTargets` entry. They run on a thread of their own. */
  proxies: ProxyPort[];
  /** The forward proxy port, when `forward` was asked for. */
  forwardProxy?: ProxyPort;
  /** mcpscope's CA, when a forward proxy runs. */
  ca?: LocalCa;
  /** The thread running the proxy ports (none without a target). */
  proxyThread?: ProxyThread;
  ui?: UiServer;
  store: EventStore;
  recorder: Recorder;
  token: string;
  /** Fault injection rules (empty = off); edited through /api/faults on the UI port. */
  faults: FaultRegistry;
  /** Breakpoint rules (empty = off); edited through /api/breakpoints on the UI port. */
  breakpoints: BreakpointRegistry;
  /** The messages held at breakpoints now (/api/paused). */
  paused: PausedRegistry;
  /** The running stdio processes mcpscope can send into (their wrappers register them). */
  stdioLinks: StdioLinks;
  /**
   * Sends a request into a running stdio session (POST /api/sessions/:id/send for stdio): written to
   * the server's stdin at a line boundary, its answer taken off the server's stdout before the
   * client sees it. Rejects with a StdioSendError (its `status`: 400, 409, 502, 504).
   */
  sendToStdio(sessionId: string, message: Record<string, unknown>): Promise<{ response: unknown }>;
  /** The OTLP export's counts (`/api/stats`'s `telemetry`); only when `otlp` was given. */
  telemetry?: { stats(): TelemetryStats };
  /** Hands a wire record to the recorder (an O(1) push onto the capture queue). */
  capture(record: WireRecord): void;
  /** Run the recorder on everything captured so far on this thread (normally it runs on the next tick). */
  flush(): void;
  /**
   * Bring over everything the proxy thread captured so far, then run the recorder on it (tests:
   * after a client got its answer, `await settle()` and the store holds the exchange).
   */
  settle(): Promise<void>;
  /** Resolves with the first batch of events for which `predicate` holds over the whole store. */
  waitFor<T>(predicate: (store: EventStore) => T | undefined | false, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
  /**
   * Stops gracefully (the CLI on SIGTERM/SIGINT): the proxy ports stop accepting connections, the
   * calls in flight get up to `graceMs` (default 5 s) to finish — GET event streams and blind
   * tunnels do not hold it, they end with the last call (proxy/wire/forwarder/drain.ts) — then
   * everything is closed as `close()` does: what was captured goes through the recorder into the
   * store and the record file, which is synced to disk. `waiting` hears at once what it waits for.
   * Resolves with that count and how many calls were cut off at the grace period's end.
   */
  shutdown(options?: ShutdownOptions): Promise<{ calls: number; cut: number }>;
}

export interface ShutdownOptions {
  /** How long calls in flight may take to finish (ms). Default 5000. */
  graceMs?: number;
  /** Why (recorded on exchanges cut at the end), e.g. "SIGTERM". */
  reason?: string;
  waiting?: (now: { calls: number; streams: number; graceMs: number }) => void;
}

/** How long a shutdown waits for calls in flight, unless told otherwise (`--grace`). */
export const DEFAULT_GRACE_MS = 5000;

/** An mcpscope in front of a `target`. */
export interface Mcpscope extends McpscopeCore {
  proxy: ProxyPort;
}

/** The built UI: dist/ui, beside dist/proxy when compiled, or under dist/ when run from source (tests). */
export const UI_DIR = fileURLToPath(new URL(import.meta.url.includes('/dist/proxy/') ? '../../ui/' : '../../dist/ui/', import.meta.url));

export function generateToken(): string {
  return randomBytes(18).toString('base64url');
}

export { hashSessionId };

/** The port of an origin (`http://host:port`), when it names one. */
function portOf(origin: string): string | undefined {
  try {
    return new URL(origin).port || undefined;
  } catch {
    return undefined;
  }
}

export function startMcpscope(options: McpscopeOptions & { target: string }): Promise<Mcpscope>;
export function startMcpscope(options: McpscopeOptions): Promise<McpscopeCore>;
export async function startMcpscope(options: McpscopeOptions): Promise<McpscopeCore> {
  // An empty token would open the UI to anyone: treat it as unset.
  const token = options.token || process.env.MCPSCOPE_TOKEN || generateToken();
  const store = new EventStore({ maxEvents: options.maxEvents, maxBytes: options.maxMemoryBytes });
  const redactor = createRedactor({ showSecrets: options.showSecrets, extraSecrets: [token] });
  // An exception nothing caught (proxy/wire/last-resort.ts) becomes a problem event here, as does one on the proxy thread.
  const unexpected = recordUnexpectedErrors(store, (text) => redactor.text(text));
  const recorder = new Recorder({
    store,
    redactor,
    maxBodyBytes: options.maxBodyBytes,
    lint: options.lint,
    modelTraffic: options.modelTraffic,
  });
  let thread: ProxyThread | undefined;
  let ui: UiServer | undefined;
  let proxies: ProxyPort[] = [];
  let forwardProxy: ProxyPort | undefined;
  let ca: LocalCa | undefined;
  const stdioLinks = new StdioLinks();
  // POST /api/sessions/:id/send for a stdio session (proxy/addons/send/ calls it as its `stdio` dependency).
  const sendToStdio = (sessionId: string, message: Record<string, unknown>) =>
    stdioLinks.send({ store, xidOf: (id) => recorder.wireKeyOf(id)?.process }, sessionId, message);
  const addons = defaultAddons(options, {
    store,
    token,
    // The queue is made below, once the addons say how records are viewed.
    flush: () => queue.flush(),
    threadApplied: async () => thread?.settle(),
    wrappersApplied: async () => ui?.ingest?.rulesAdopted(),
    paused: {
      locate: (xid) => recorder.locate(xid),
      emit: (e) => {
        store.append(e);
        store.commit();
      },
      redact: (text) => redactor.text(text),
    },
    resolveSession: (id) => recorder.wireKeyOf(id),
    send: () => ({
      store,
      keptRequest: (id) => recorder.keptRequest(id),
      settle: async () => {
        await thread?.settle();
        queue.flush();
      },
      reverseOrigin: (target, proxyOrigin) => {
        const i = upstreams.findIndex((u) => u.target === target);
        if (i >= 0 && proxies[i]) return proxies[i].origin;
        const port = portOf(proxyOrigin);
        return proxies.find((p) => String(p.port) === port)?.origin;
      },
      forwardProxy: forwardProxy?.origin,
      caPem: ca?.certPem,
      stdio: sendToStdio,
    }),
  });
  const { telemetry } = addons;
  const faults = addons.faults.rules;
  const breakpoints = addons.breakpoints.rules;
  const paused = addons.breakpoints.paused;
  // The hot path only pushes; an addon's view of the records (hashed session ids) is applied in the consumer's batch.
  const views = addons.list.flatMap((a) => (a.recordView ? [a.recordView] : []));
  const queue = new CaptureQueue(
    views.length > 0 ? (records) => recorder.handle(records.map((r) => views.reduce((v, view) => view(v), r))) : recorder.handle,
  );
  const capture = options.record === false ? () => undefined : (r: WireRecord) => queue.push(r);
  const stopNotices = options.onNotice
    ? watchReachability(store, { notice: options.onNotice, isLive: (id) => recorder.registry.sessions.has(id) })
    : undefined;

  // The addons in their order (a record file or log that cannot be opened fails the launch here).
  let started: StartedAddons;
  try {
    started = await startAddons(addons.list);
  } catch (err) {
    unexpected.stop();
    stopNotices?.();
    throw err;
  }
  /** What a launch that fails leaves open: the addons, the last-resort recording. */
  const stopOutputs = async () => {
    stopNotices?.();
    unexpected.stop();
    await started.close({ launchFailed: true });
  };

  const upstreams = [
    ...(options.target !== undefined ? [{ name: options.targetName, target: options.target, port: options.port }] : []),
    ...(options.moreTargets ?? []),
  ];
  // The proxy ports run on their own thread: nothing on this one (recorder, store, UI, feed) can
  // delay a forwarded byte.
  if (options.forward) {
    const { loadOrCreateCa } = await import('../wire/forward-proxy/ca.js');
    try {
      ca = await loadOrCreateCa({ warn: (text) => process.emitWarning(`mcpscope: ${text}`) });
    } catch (err) {
      await stopOutputs();
      throw err;
    }
  }
  if (upstreams.length > 0 || ca) {
    // Said here, on the main thread: once per process (a proxy thread started again would say it again).
    if (ca || upstreams.some((u) => /^https:/i.test(u.target))) tellIgnoredTlsEnv();
    try {
      thread = await startProxyThread(
        {
          upstreams,
          upstreamCa: options.upstreamCa,
          ...(ca && options.forward
            ? {
                forward: {
                  port: options.forward.port ?? 0,
                  intercept: options.forward.intercept,
                  upstreamCa: options.forward.upstreamCa,
                  ca: { certPem: ca.certPem, keyPem: ca.keyPem, certPath: ca.certPath },
                },
              }
            : {}),
          port: options.port,
          host: options.host,
          rewrite: options.rewrite,
          allowOrigins: options.allowOrigins,
          allowHosts: options.allowHosts,
          record: options.record,
          maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
        },
        {
          entry: PROXY_WORKER_ENTRY,
          capture,
          addons: addons.list.flatMap((a) => (a.thread ? [a.thread] : [])),
          onProblem: (problem) => reportFromProxyThread(problem, unexpected.record),
          onRestart: (text) => {
            // What the dead thread had in flight will never end by itself: end it here.
            queue.flush();
            const ts = Date.now();
            for (const xid of recorder.openExchanges())
              capture({ t: 'abort', xid, ts, side: 'proxy', reason: "mcpscope's proxy thread failed while this exchange was in flight" });
            queue.flush();
            store.append({ type: 'log', ts, source: 'mcpscope', text });
            store.commit();
            process.emitWarning(`mcpscope: ${text}`);
          },
        },
      );
    } catch (err) {
      await stopOutputs();
      throw err;
    }
  }
  proxies = (thread?.ports ?? []).filter((p) => !p.forward);
  forwardProxy = thread?.ports.find((p) => p.forward);
  const proxy: ProxyPort | undefined = proxies[0];
  const otlp = telemetry?.export;
  if (options.uiPort !== false) {
    try {
      ui = await startUiServer({
        store,
        token,
        host: options.host,
        port: options.uiPort ?? 0,
        uiDir: UI_DIR,
        allowOrigins: options.allowOrigins,
        allowHosts: options.allowHosts,
        showSecrets: !!options.showSecrets,
        version: packageVersion(),
        feed: options.feed,
        discoveryFile: options.discoveryFile,
        plugins: [
          fixtureRoutes({ store, token, version: packageVersion(), live: true }),
          // Server-side search and call views (mcpscope mcp reads them): /api/search, /api/calls/:ref.
          searchRoutes({ store }),
          // The addons' routes (faults: /api/faults; breakpoints: /api/breakpoints, /api/paused; send: POST /api/sessions/:id/send).
          ...addons.list.flatMap((a) => (a.routes ? [a.routes()] : [])),
          // The store's size and what its cap evicted, for the UI.
          async (app) => {
            app.get('/api/stats', async (): Promise<ApiStats> => (otlp ? { ...store.stats(), telemetry: otlp.stats() } : store.stats()));
          },
        ],
        ingest: capture,
        ingestOptions: {
          breakpoints,
          paused,
          holdMs: options.holdMs,
          links: stdioLinks,
          token,
          exports: otlp !== undefined,
          // What a wrapper's --log prints, in this UI's numbers (proxy/app/stdio/stdio-log.ts).
          recorded: { store, sessionOf: (xid) => recorder.processSession(xid), idle: () => queue.idle },
        },
      });
    } catch (err) {
      // (e.g. the UI port is taken): leave nothing listening or open behind.
      await thread?.close().catch(() => undefined);
      queue.close();
      await stopOutputs();
      throw err;
    }
  }

  let removeDiscovery: (() => void) | undefined;
  if (ui && options.discoveryFile) {
    try {
      removeDiscovery = writeDiscovery(ui.port, { token, url: `${ui.origin}/`, forwardProxy: forwardProxy?.origin });
    } catch (err) {
      process.emitWarning(`mcpscope could not write its discovery file (stdio wrappers will need --token): ${(err as Error).message}`);
    }
  }

  async function close(): Promise<void> {
    unexpected.stop();
    stopNotices?.();
    removeDiscovery?.();
    await thread?.close();
    queue.close();
    recorder.close();
    // The record file, the log, the export (flushed for 2 s at most), … last started first.
    await started.close();
    await ui?.close();
  }

  return {
    proxy,
    proxies,
    forwardProxy,
    ca,
    proxyThread: thread,
    ui,
    store,
    recorder,
    token,
    faults,
    breakpoints,
    paused,
    stdioLinks,
    sendToStdio,
    ...(otlp ? { telemetry: otlp } : {}),
    capture,
    flush: () => queue.flush(),
    async settle() {
      await thread?.settle();
      queue.flush();
    },
    waitFor<T>(predicate: (s: EventStore) => T | undefined | false, timeoutMs = 10_000): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const check = (): boolean => {
          const v = predicate(store);
          if (v !== undefined && v !== false) {
            cleanup();
            resolve(v as T);
            return true;
          }
          return false;
        };
        const unsubscribe = store.subscribe(() => void check());
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`mcpscope.waitFor: condition not met within ${timeoutMs} ms (${store.size} events recorded)`));
        }, timeoutMs);
        const cleanup = () => {
          unsubscribe();
          clearTimeout(timer);
        };
        check();
      });
    },
    close,
    async shutdown(o: ShutdownOptions = {}) {
      const graceMs = o.graceMs ?? DEFAULT_GRACE_MS;
      const why = `mcpscope shut down${o.reason ? ` (${o.reason})` : ''} while this was still open${graceMs > 0 ? ` (it waits up to ${graceMs} ms for calls in flight; event streams end with the last call)` : ''}`;
      const drained = thread
        ? await thread.drain(graceMs, why, (now) => o.waiting?.({ ...now, graceMs }))
        : (o.waiting?.({ calls: 0, streams: 0, graceMs }), { calls: 0, cut: 0 });
      await close();
      return { calls: drained.calls, cut: drained.cut };
    },
  };
}

export type { McpscopeEvent };
