/**
 * What the real-client matrix (client-matrix.test.ts) runs on: the built CLI (`node bin/mcpscope.js`)
 * as a user starts it, its printed proxy URL and UI token read from its stderr; an HTTPS front for
 * server-everything (a TLS terminator with a test CA's leaf for `localhost`); mcpscope's API read
 * with the token; and each client run with a throwaway HOME (and XDG folders), never the real one.
 *
 * Everything listens on 127.0.0.1 on ports the OS picks. No sleeps: a wait is on a process's output
 * or on the UI's feed, with a deadline whose failure says what was seen.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CaMaterial } from '../../proxy/wire/forward-proxy/ca.js';
import type { McpscopeEvent, MessageEvent, SessionInfo } from '../../proxy/core/model/events.js';
import { collectFeed, type CollectedFeed } from '../support/feed.js';
import { watchText, type TextWatch } from '../support/text-watch.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The built CLI (dist/ must be built: `npm run test:clients` builds it first). */
export const BIN = join(ROOT, 'bin', 'mcpscope.js');

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** True when it ran past its time limit and was killed. */
  killed: boolean;
}

/** Runs a command to its end (stdin closed), killing its process group after `timeoutMs`. */
export function runCommand(cmd: string, args: string[], opts: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number }): Promise<Ran> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      killed = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, opts.timeoutMs ?? 60_000);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started, killed });
    });
  });
}

/** A command's result in a few plain lines, for a failure message. */
export function describeRun(what: string, r: Ran): string {
  const tail = (s: string) => s.trim().split('\n').slice(-12).join('\n    ');
  return (
    `${what} ${r.killed ? 'was killed after its time limit' : `exited with code ${r.code}`} after ${r.ms} ms\n` +
    `  stdout:\n    ${tail(r.stdout) || '(nothing)'}\n  stderr:\n    ${tail(r.stderr) || '(nothing)'}`
  );
}

/** A throwaway folder (its real path: Gemini CLI compares trusted folders by real path). */
export function tempDir(prefix: string, dirs: string[]): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(d);
  return d;
}

/** Variables a client must not inherit from the machine running the tests. */
const INHERITED_OUT = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'NODE_USE_ENV_PROXY',
  'NODE_OPTIONS',
  'SSL_CERT_FILE',
  'MCPSCOPE_TOKEN',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GEMINI_BASE_URL',
  // The test trusts its folder the way a user's settings do (trustedFolders.json), not by variable.
  'GEMINI_CLI_TRUST_WORKSPACE',
  // Under GitHub Actions (GITHUB_SHA set, or SURFACE=Github) Gemini CLI 0.61 gives a stdio
  // server only PATH, HOME and a few more (environmentSanitization.ts, "strict"): MCPSCOPE_HOME
  // would not reach the wrapper. A user's machine does not set these.
  'GITHUB_SHA',
  'SURFACE',
];

/**
 * A client's environment: a throwaway HOME with its XDG folders, `bins` first on PATH (so that the
 * clients are found by name, as a user types them), mcpscope's discovery files in `scopeHome`.
 */
export function clientEnv(home: string, scopeHome: string, bins: string[], extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of INHERITED_OUT) delete env[k];
  for (const d of ['.config', '.cache', '.local/share', '.local/state']) mkdirSync(join(home, d), { recursive: true });
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    PATH: [...bins, dirname(process.execPath), process.env.PATH ?? ''].join(delimiter),
    MCPSCOPE_HOME: scopeHome,
    ...extra,
  };
}

/** Gemini CLI 0.61's user settings for an offline, headless run (as test/agents/gemini-cli.test.ts). */
export function writeGeminiSettings(home: string, trusted: string): void {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    }),
  );
  // Folder trust (on by default in 0.61): an untrusted folder's MCP servers, the user's included,
  // are listed as "Disabled" and never started. This is the file Gemini CLI's own trust dialog
  // writes (~/.gemini/trustedFolders.json, a real path → TRUST_FOLDER).
  writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [trusted]: 'TRUST_FOLDER' }));
}

export interface ScopeCli {
  /** The proxy: a reverse one's URL (with the target's path), or a forward one's origin. */
  proxy: string;
  uiOrigin: string;
  uiPort: number;
  token: string;
  stderr: TextWatch;
  feed: CollectedFeed;
  /** GET an API route with the token (Authorization: Bearer). */
  api<T>(path: string): Promise<T>;
  close(): Promise<void>;
}

/** Starts the built CLI (`node bin/mcpscope.js <args>`) and reads its proxy and UI from the banner on stderr. */
export async function startScopeCli(args: string[], env: NodeJS.ProcessEnv): Promise<ScopeCli> {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stderr = watchText(child.stderr, `mcpscope ${args.join(' ')} (stderr)`);
  child.stdout.resume();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const proxy = (await stderr.match(/^\s*proxy\s+(http:\/\/\S+)/m, 30_000))[1];
    const ui = await stderr.match(/^\s*UI\s+(http:\/\/127\.0\.0\.1:(\d+))\/\?token=(\S+)/m);
    const [, uiOrigin, port, token] = ui;
    const feed = collectFeed(`${uiOrigin}/?token=${token}`);
    return {
      proxy,
      uiOrigin,
      uiPort: Number(port),
      token,
      stderr,
      feed,
      async api<T>(path: string): Promise<T> {
        const res = await fetch(`${uiOrigin}${path}`, { headers: { authorization: `Bearer ${token}` } });
        if (!res.ok) throw new Error(`GET ${path} on mcpscope's API answered ${res.status}: ${await res.text()}`);
        return (await res.json()) as T;
      },
      async close() {
        process.off('exit', killOnExit);
        feed.close();
        child.kill('SIGTERM');
        await exited;
      },
    };
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
}

export interface TlsFront {
  port: number;
  /** `https://localhost:<port>/mcp` (the leaf is for localhost). */
  url: string;
  origin: string;
  close(): Promise<void>;
}

/** An HTTPS server in front of an HTTP one: TLS terminated with `leaf`, the bytes relayed to 127.0.0.1:`to`. */
export async function startTlsFront(leaf: CaMaterial, to: number): Promise<TlsFront> {
  const sockets = new Set<Socket>();
  const server = createTlsServer({ cert: leaf.certPem, key: leaf.keyPem }, (tls) => {
    const up = netConnect(to, '127.0.0.1');
    sockets.add(tls).add(up);
    const end = () => {
      tls.destroy();
      up.destroy();
      sockets.delete(tls);
      sockets.delete(up);
    };
    tls.on('error', end).on('close', end);
    up.on('error', end).on('close', end);
    tls.pipe(up).pipe(tls);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `https://localhost:${port}/mcp`,
    origin: `https://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export const removeDirs = (dirs: string[]) => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
};

// ---------------------------------------------------------------------------------------------
// What a cell must show in mcpscope: a new session with initialize and a second request
// (tools/list, or ping) each answered, the answer paired with its request.
// ---------------------------------------------------------------------------------------------

const SECOND = ['tools/list', 'ping'];

/** The pairs a session's messages show, or why not, in words. */
function pairsIn(messages: MessageEvent[]): { ok: true; detail: string } | { ok: false; why: string } {
  const answered = (method: string) => {
    const req = messages.find((m) => m.kind === 'request' && m.method === method);
    if (!req) return undefined;
    const res = messages.find((m) => (m.kind === 'response' || m.kind === 'error') && m.pair === req.seq);
    return { req, res };
  };
  const init = answered('initialize');
  if (!init) return { ok: false, why: 'no initialize request' };
  if (!init.res) return { ok: false, why: `initialize (seq ${init.req.seq}) has no response paired with it` };
  if (init.res.kind !== 'response' || init.res.id !== init.req.id)
    return { ok: false, why: `initialize's answer is ${init.res.kind} with id ${JSON.stringify(init.res.id)}` };
  for (const method of SECOND) {
    const a = answered(method);
    if (!a) continue;
    if (!a.res) return { ok: false, why: `${method} (seq ${a.req.seq}) has no response paired with it` };
    if (a.res.kind !== 'response' || a.res.id !== a.req.id) return { ok: false, why: `${method}'s answer is ${a.res.kind}` };
    return { ok: true, detail: `initialize ↔ ${init.res.seq}, ${method} ↔ ${a.res.seq}` };
  }
  const seen = messages.map((m) => `${m.kind} ${m.method ?? ''}`.trim()).join(', ');
  return { ok: false, why: `neither tools/list nor ping was requested (messages: ${seen || 'none'})` };
}

/** Session ids the UI's API lists now (before a cell runs). */
export async function sessionIds(scope: ScopeCli): Promise<Set<string>> {
  return new Set((await scope.api<SessionInfo[]>('/api/sessions')).map((s) => s.id));
}

/**
 * Waits (on the UI's feed) for a session not in `before` that `match`es, with initialize and
 * tools/list or ping paired, then checks it through the API (GET /api/sessions, then
 * /api/sessions/<id>/messages). Returns a short description; throws in plain words otherwise.
 */
export async function expectRecorded(
  scope: ScopeCli,
  before: Set<string>,
  match: (s: SessionInfo) => boolean,
  what: string,
): Promise<string> {
  const inFeed = (events: McpscopeEvent[]) => {
    const ids = new Set<string>();
    for (const e of events) if (e.type === 'session' && !before.has(e.session.id) && match(e.session as SessionInfo)) ids.add(e.session.id);
    return [...ids].some((id) => pairsIn(events.filter((e): e is MessageEvent => e.type === 'message' && e.sessionId === id)).ok);
  };
  // The records reach the UI after the client has exited (a stdio wrapper's come over its /ingest
  // link): the feed says when; a miss is reported from the API below.
  await scope.feed.until(inFeed, 20_000).catch(() => undefined);
  const sessions = (await scope.api<SessionInfo[]>('/api/sessions')).filter((s) => !before.has(s.id));
  const mine = sessions.filter(match);
  if (mine.length === 0)
    throw new Error(
      `${what}: mcpscope (${scope.uiOrigin}) recorded no new session for it; new sessions: ` +
        (sessions.map((s) => `${s.id} ${s.transport} ${s.target}`).join('; ') || 'none'),
    );
  const whys: string[] = [];
  for (const s of mine) {
    const messages = await scope.api<MessageEvent[]>(`/api/sessions/${encodeURIComponent(s.id)}/messages`);
    const p = pairsIn(messages);
    if (p.ok) return `${s.id} (${s.clientInfo?.name ?? 'no clientInfo'}): ${p.detail}`;
    whys.push(`${s.id}: ${p.why}`);
  }
  throw new Error(`${what}: mcpscope recorded the session but not the pairs it should: ${whys.join('; ')}`);
}

/** The line a client's `mcp list` printed for server `name`, and whether it says Connected. */
export function listedLine(output: string, name: string): { line?: string; connected: boolean } {
  const line = output.split('\n').find((l) => new RegExp(`(^|\\s)${name}: `).test(l));
  return { line: line?.trim(), connected: line !== undefined && /\s-\s(✔\s)?Connected\s*$/.test(line) };
}
