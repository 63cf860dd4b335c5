/**
 * The UI port: the timeline page, the session API and the WebSocket feed — all behind the
 * per-launch token and the Host/Origin guards.
 *
 *   GET  /?token=T                       the UI (sets an HttpOnly SameSite=Strict cookie)
 *   GET  /api/sessions                   sessions, newest last
 *   GET  /api/sessions/:id               one session
 *   GET  /api/sessions/:id/messages      its JSON-RPC messages in wire order
 *   GET  /api/sessions/:id/events        all its events (exchanges, SSE frames, problems…)
 *   GET  /api/sessions/:id/lint          its spec lint report: rules broken, how often, first occurrence
 *   GET  /api/events?since=SEQ           every event after SEQ
 *   GET  /api/exchanges/:id              one HTTP exchange
 *   GET  /api/messages/:seq              one message in full (the feed elides payloads over 256 KiB)
 *   POST /api/clear                      forget everything captured so far
 *   GET  /api/info                       what this UI serves: { mode: "live" }, or a saved capture
 *                                        (`mcpscope open`): { mode: "capture", file, kind }
 *   WS   /ws?since=SEQ                   hello, snapshot, then live events (see docs/event-schema.md)
 *   WS   /ingest                         stdio wrappers send their wire records (see ingest.ts); the token
 *                                        presented, or proven over the socket (x-mcpscope-ingest-auth:
 *                                        challenge), and no Origin at all (browsers may not ingest)
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { lintReport } from '../../core/lint/lint-report.js';
import fastifyStatic from '@fastify/static';
import { WebSocketServer } from 'ws';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { EventStore } from '../../recorder/store/event-store.js';
import type { WireRecord } from '../../wire/capture/wire-records.js';
import { FeedHub, type FeedOptions } from './feed.js';
import { IngestHub, INGEST_MAX_PAYLOAD, type IngestHubOptions } from './ingest.js';
import { INGEST_AUTH_HEADER } from '../stdio/ingest-control.js';
import { tokenPage, TOKEN_PAGE_POLICY, wantsTokenPage } from './token-page.js';
import { discoveryPath } from './discovery.js';
import { installErrorHandler } from './error-handler.js';
import { McpscopeError, SAY } from '../../core/model/errors.js';
import { isAllowedHost, isSameOriginOrAllowed, listenOrigin, tokenMatches, TOKEN_COOKIE } from '../../wire/guards.js';

export interface UiServerOptions {
  store: EventStore;
  token: string;
  host?: string;
  port?: number;
  /** Directory of the built UI (vite output). */
  uiDir?: string;
  allowOrigins?: string[];
  allowHosts?: string[];
  showSecrets: boolean;
  version: string;
  /** Feed tuning: send-buffer bound per socket, coalescing window, snapshot chunk size. */
  feed?: UiFeedOptions;
  /**
   * Where records from `/ingest` (stdio wrappers) go: the capture function of this mcpscope's
   * recorder. Without it (a UI with no recorder, e.g. browsing a saved capture) /ingest answers 404.
   */
  ingest?: (record: WireRecord) => void;
  /** Breakpoints and sends for stdio wrappers on `/ingest` (see IngestHubOptions). */
  ingestOptions?: IngestHubOptions;
  /**
   * A saved capture served by `mcpscope open` (no proxy, nothing live): `/api/info` says so, and
   * the UI shows the file instead of the live controls (pause, clear, faults, store stats).
   */
  capture?: { file: string; kind: string };
  /** Whether this UI announces itself in a discovery file (`$MCPSCOPE_HOME/ui-<port>.json`): the token page names it. */
  discoveryFile?: boolean;
  /** Extra routes (exports, fault injection…) registered inside the authenticated scope. */
  plugins?: ((app: FastifyInstance) => Promise<void> | void)[];
}

export type UiFeedOptions = Pick<FeedOptions, 'maxBufferedBytes' | 'flushMs' | 'snapshotChunk'>;

export interface UiServer {
  origin: string;
  port: number;
  /** The URL to open, token included. */
  url: string;
  app: FastifyInstance;
  feed: FeedHub;
  /** Present when the server accepts stdio wrappers' records. */
  ingest?: IngestHub;
  close(): Promise<void>;
}

export { TOKEN_COOKIE };

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        // Malformed percent-encoding (any page on a loopback port can set such a cookie): not our token.
        return value;
      }
    }
  }
  return undefined;
}

/** The token a request presents: `Authorization: Bearer`, `X-Mcpscope-Token`, `?token=`, or the cookie. */
export function presentedToken(req: { headers: IncomingMessage['headers']; url?: string }): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, '').trim();
  const header = req.headers['x-mcpscope-token'];
  if (typeof header === 'string') return header;
  const url = req.url ?? '';
  const q = url.indexOf('?');
  if (q >= 0) {
    const t = new URLSearchParams(url.slice(q + 1)).get('token');
    if (t !== null) return t;
  }
  return cookieValue(req.headers.cookie, TOKEN_COOKIE);
}

/**
 * The UI's Content-Security-Policy: only its own scripts, styles and API; the feed's WebSocket on
 * the address the page was loaded from (`ws://<Host>`: 'self' covers ws: only in newer browsers);
 * data: images (the favicon); no frames, forms, base URL or plugins. The built UI needs nothing
 * looser: its only inline styles are React `style` props, set through the CSSOM, which style-src
 * does not govern (test/e2e/ui-csp-browser.test.ts counts violations in Chromium).
 */
export function contentSecurityPolicy(host: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src 'self' ws://${host}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join('; ');
}

export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const { store, token } = options;
  const host = options.host ?? '127.0.0.1';
  const app = Fastify({ logger: false, forceCloseConnections: true });
  const feed = new FeedHub(store, { ...options.feed, version: options.version, showSecrets: options.showSecrets });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const ingest = options.ingest ? new IngestHub(options.ingest, options.ingestOptions) : undefined;
  const ingestWss = ingest ? new WebSocketServer({ noServer: true, maxPayload: INGEST_MAX_PAYLOAD }) : undefined;
  let boundPort = 0;
  /** The policy per Host the UI was reached by (a handful of loopback spellings; checked by guard()). */
  const policies = new Map<string, string>();
  const policyFor = (host: string): string => {
    let p = policies.get(host);
    if (p === undefined) {
      p = contentSecurityPolicy(host);
      if (policies.size < 64) policies.set(host, p);
    }
    return p;
  };

  function guard(
    req: { headers: IncomingMessage['headers']; url?: string },
    needsToken = true,
  ): { status: number; message: string } | undefined {
    if (!isAllowedHost(req.headers.host, { port: boundPort, extraHosts: options.allowHosts })) {
      return {
        status: 403,
        message: `Host ${JSON.stringify(req.headers.host ?? '')} is not this UI's loopback address (DNS rebinding protection).`,
      };
    }
    const origin = req.headers.origin;
    if (!isSameOriginOrAllowed(typeof origin === 'string' ? origin : undefined, boundPort, options.allowOrigins)) {
      return { status: 403, message: `Origin ${JSON.stringify(origin)} may not use the mcpscope UI (cross-site protection).` };
    }
    if (needsToken && !tokenMatches(presentedToken(req), token)) {
      return {
        status: 401,
        message:
          'This mcpscope UI needs its token: open the URL mcpscope printed (it ends in ?token=…), or send Authorization: Bearer <token>.',
      };
    }
    return undefined;
  }

  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    const refused = guard(request.raw);
    if (refused?.status === 401 && wantsTokenPage(request.method, request.url, request.headers)) {
      // A browser opening the UI without its token: a page that says where the token is, not JSON.
      void reply
        .code(401)
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .header('content-security-policy', TOKEN_PAGE_POLICY)
        .send(
          tokenPage({
            port: boundPort,
            discoveryFile: options.discoveryFile ? discoveryPath(boundPort) : undefined,
            wrongToken: presentedToken(request.raw) !== undefined,
          }),
        );
      return;
    }
    if (refused) {
      void reply
        .code(refused.status)
        .header('content-type', 'application/json')
        .send(JSON.stringify({ error: refused.message }));
      return;
    }
    // First visit with ?token=: remember it in a cookie the page's own requests carry.
    const q = request.url.indexOf('?');
    if (q >= 0 && new URLSearchParams(request.url.slice(q + 1)).has('token')) {
      reply.header('set-cookie', `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`);
    }
    reply.header('cache-control', 'no-store');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('content-security-policy', policyFor(request.headers.host ?? `127.0.0.1:${boundPort}`));
    done();
  });

  installErrorHandler(app);
  const session = (id: string) => {
    const s = store.sessions.get(id);
    if (!s) throw new McpscopeError('NO_SESSION', SAY.noSession(id));
    return s;
  };
  app.get('/api/sessions', async () => [...store.sessions.values()]);
  app.get<{ Params: { id: string } }>('/api/sessions/:id', async (req) => session(req.params.id));
  app.get<{ Params: { id: string } }>('/api/sessions/:id/messages', async (req) => store.messages(session(req.params.id).id));
  app.get<{ Params: { id: string } }>('/api/sessions/:id/events', async (req) => store.sessionEvents(session(req.params.id).id));
  app.get<{ Params: { id: string } }>('/api/sessions/:id/lint', async (req) => {
    const s = session(req.params.id);
    return lintReport(s.id, store.sessionEvents(s.id), { protocolVersion: s.protocolVersion });
  });
  app.get<{ Params: { seq: string } }>('/api/messages/:seq', async (req) => {
    const m = store.message(Number(req.params.seq));
    if (!m) throw new McpscopeError('NO_MESSAGE', `No message #${req.params.seq}`);
    return m;
  });
  app.get<{ Querystring: { since?: string } }>('/api/events', async (req) => store.snapshot(Number(req.query.since ?? 0) || 0));
  app.get<{ Params: { id: string } }>('/api/exchanges/:id', async (req) => {
    const x = store.exchanges.get(req.params.id);
    if (!x) throw new McpscopeError('NO_EXCHANGE', `No exchange ${req.params.id}`);
    return x;
  });
  const info = options.capture
    ? { mode: 'capture', file: options.capture.file, kind: options.capture.kind, version: options.version }
    : { mode: 'live', version: options.version };
  app.get('/api/info', async () => info);
  app.post('/api/clear', async () => {
    store.clear();
    feed.cleared();
    return { ok: true };
  });

  for (const plugin of options.plugins ?? []) await plugin(app);

  const uiDir = options.uiDir;
  if (uiDir && existsSync(`${uiDir}/index.html`)) {
    await app.register(fastifyStatic, { root: uiDir, prefix: '/', index: 'index.html', wildcard: false });
  } else {
    app.get('/', async (_req, reply) =>
      reply
        .type('text/html')
        .send(
          '<!doctype html><title>mcpscope</title><p>The mcpscope UI is not built. Run <code>npm run build</code>; the API is at <code>/api/sessions</code>.</p>',
        ),
    );
  }

  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    let refused: { status: number; message: string } | undefined;
    // A wrapper that proves it knows the token over the socket instead of sending it (ingest.ts).
    let challenge = false;
    try {
      if (path === '/ws') refused = guard(req);
      else if (path === '/ingest' && ingest) {
        challenge = req.headers[INGEST_AUTH_HEADER] === 'challenge' && presentedToken(req) === undefined;
        // Only programs ingest (the stdio wrapper): any page a browser shows sends an Origin.
        refused =
          guard(req, !challenge) ??
          (req.headers.origin !== undefined
            ? { status: 403, message: 'Browsers may not send records to mcpscope: /ingest takes no Origin.' }
            : undefined);
      } else refused = { status: 404, message: 'not found' };
    } catch {
      // An exception here would be uncaught (an 'upgrade' listener) and take mcpscope down.
      refused = { status: 400, message: 'bad request' };
    }
    if (refused) {
      socket.end(
        `HTTP/1.1 ${refused.status} ${refused.status === 401 ? 'Unauthorized' : refused.status === 403 ? 'Forbidden' : refused.status === 400 ? 'Bad Request' : 'Not Found'}\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n${JSON.stringify({ error: refused.message })}`,
      );
      return;
    }
    if (path === '/ingest') {
      ingestWss!.handleUpgrade(req, socket, head, (ws) => ingest!.add(ws, { authenticated: !challenge }));
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const since = Number(new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('since') ?? 0) || 0;
      feed.add(ws, since);
    });
  });

  await app.listen({ host, port: options.port ?? 0 });
  boundPort = (app.server.address() as AddressInfo).port;
  const origin = listenOrigin(host, boundPort);
  return {
    origin,
    port: boundPort,
    url: `${origin}/?token=${encodeURIComponent(token)}`,
    app,
    feed,
    ingest,
    async close() {
      await Promise.all([feed.close(), ingest?.close()]);
      ingestWss?.close();
      wss.close();
      await app.close();
    },
  };
}
