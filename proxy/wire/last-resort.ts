/**
 * The last resort: what happens to an exception nothing caught (`uncaughtException`) and a
 * rejection nobody handled (`unhandledRejection`). Node's default ends the process — and with it
 * every proxied connection, for a bug in a callback of one of them. Here:
 *
 * - **It is said in plain words** on stderr, once per distinct error (its name, message and first
 *   stack frame), at most 20 distinct ones (then one line saying that more are only counted); a
 *   repeat is counted and said again at 10, 100, 1,000… times.
 * - **It is recorded**: each hook (`onUnexpectedError`; startMcpscope registers one that appends a
 *   `problem` event, code `internal-error`, to its store) hears the same, as often.
 * - **A long-running process keeps running** (the proxies, the stdio wrapper, `run`, `open`,
 *   `replay`, `mcp`): other connections go on being forwarded. A one-shot command (`verify`,
 *   `wrap`, `unwrap`, `env`, `ca`) stops with exit code 70: its answer could not be trusted.
 * - **Fatal, so the process stops (exit code 70)**: what says the process itself is broken, not
 *   one connection — Node's own internal assertion (`ERR_INTERNAL_ASSERTION`), memory that cannot
 *   be allocated (`ERR_MEMORY_ALLOCATION_FAILED`, "Array buffer allocation failed"), and an error
 *   raised while an earlier one was being reported.
 *
 * The proxy thread (proxy/wire/thread/proxy-worker.ts) installs the same policy in its worker with
 * `installInProxyThread`: an exception there does not end the thread (the restart in
 * proxy-thread.ts would cut every connection); it is posted to the main thread, which says and
 * records it here (`reportFromProxyThread`). A fatal one ends the worker, which is then started
 * again on the same ports.
 *
 * No Node builtin but `process`, nothing of the recorder or the store: the proxy thread imports it.
 */

import type { McpscopeEvent, UnsequencedEvent } from '../core/model/events.js';

export type UnexpectedErrorHook = (text: string) => void;

export interface LastResortOptions {
  /** How its lines start: `mcpscope`, `mcpscope mcp`. */
  name?: string;
  /** Keep running after an unexpected error that is not fatal (a long-running server); false: say it and exit 70. */
  keepRunning: boolean;
  /** Where its lines go (default stderr). */
  write?: (line: string) => void;
  /** Applied to each line before it is written or recorded (the CLI redacts credentials). */
  redact?: (text: string) => string;
  exit?: (code: number) => void;
}

/** Exit code of a process stopped by an unexpected error (sysexits' EX_SOFTWARE). */
export const UNEXPECTED_EXIT_CODE = 70;
const MAX_SAID = 20;
const MAX_KEYS = 500;

const FATAL_CODES = new Set(['ERR_INTERNAL_ASSERTION', 'ERR_MEMORY_ALLOCATION_FAILED']);

const state: {
  name: string;
  write: (line: string) => void;
  redact: (text: string) => string;
  hooks: Set<UnexpectedErrorHook>;
  seen: Map<string, number>;
  said: number;
  saidMore: boolean;
  reporting: boolean;
} = {
  name: 'mcpscope',
  write: (line) => void process.stderr.write(`${line}\n`),
  redact: (text) => text,
  hooks: new Set<UnexpectedErrorHook>(),
  seen: new Map<string, number>(),
  said: 0,
  saidMore: false,
  reporting: false,
};

/** Registers a hook that hears every unexpected error reported (first times and repeats); returns its removal. */
export function onUnexpectedError(hook: UnexpectedErrorHook): () => void {
  state.hooks.add(hook);
  return () => void state.hooks.delete(hook);
}

/** An error's name and message on one line, at most 300 characters. */
function describe(err: unknown): { what: string; at?: string; code?: string } {
  if (err instanceof Error) {
    const at = /\n\s+at (.+)/.exec(err.stack ?? '')?.[1];
    const what = `${err.name}: ${err.message}`.replace(/\s+/g, ' ');
    return { what: what.length > 300 ? `${what.slice(0, 299)}…` : what, at, code: (err as NodeJS.ErrnoException).code };
  }
  const what = `a thrown value that is not an Error: ${String(err)}`.replace(/\s+/g, ' ');
  return { what: what.length > 300 ? `${what.slice(0, 299)}…` : what };
}

/** Whether this error says the process itself is broken (see the module's comment). */
export function isFatal(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && FATAL_CODES.has(code)) return true;
  return err instanceof RangeError && /Array buffer allocation failed/.test(err.message);
}

/**
 * Says and records one unexpected error (the first time; a repeat at 10, 100, … times). Returns
 * the line said for it (undefined for a repeat that is only counted).
 */
function report(
  where: string,
  what: string,
  at: string | undefined,
  tail: string,
  hooks: Iterable<UnexpectedErrorHook> = state.hooks,
): string | undefined {
  const key = `${where}|${what}|${at ?? ''}`;
  const n = (state.seen.get(key) ?? 0) + 1;
  if (state.seen.size < MAX_KEYS || state.seen.has(key)) state.seen.set(key, n);
  const first = n === 1;
  if (!first && !/^10*$/.test(String(n))) return undefined;
  const text = state.redact(
    first
      ? `an unexpected error in ${where}: ${what}${at ? ` (at ${at})` : ''}. ${tail}`
      : `the unexpected error in ${where} "${what}" happened again (${n} times so far).`,
  );
  for (const hook of hooks) {
    try {
      hook(text);
    } catch {
      // A hook that fails (a closed store) must not make the report fail.
    }
  }
  if (state.said < MAX_SAID) {
    state.said += 1;
    state.write(`${state.name}: ${text}`);
  } else if (!state.saidMore) {
    state.saidMore = true;
    state.write(`${state.name}: more unexpected errors happened; they are recorded, not printed here.`);
  }
  return text;
}

const KEEPS_RUNNING =
  'mcpscope keeps running and forwarding; what it was doing for that one connection may be incomplete. Please report this as a bug.';

/**
 * The main thread's policy as a function of the error (what `installLastResort` hands
 * `uncaughtException` and `unhandledRejection`): says and records it, then exits 70 when it is
 * fatal or the command is a one-shot one. Sets the options shared by every report.
 */
export function lastResortHandler(options: LastResortOptions): (err: unknown) => void {
  if (options.name) state.name = options.name;
  if (options.write) state.write = options.write;
  if (options.redact) state.redact = options.redact;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  return (err: unknown) => {
    if (state.reporting) {
      // An error while an earlier one was being reported: nothing here can be trusted any more.
      state.write(
        `${state.name}: a second unexpected error while reporting one (${describe(err).what}); stopping (exit code ${UNEXPECTED_EXIT_CODE}).`,
      );
      exit(UNEXPECTED_EXIT_CODE);
      return;
    }
    state.reporting = true;
    let stops = !options.keepRunning;
    try {
      const { what, at } = describe(err);
      const fatal = isFatal(err);
      stops ||= fatal;
      const tail = fatal
        ? `This leaves mcpscope in a state it cannot trust, so it stops now (exit code ${UNEXPECTED_EXIT_CODE}). Please report this as a bug.`
        : stops
          ? `It stops (exit code ${UNEXPECTED_EXIT_CODE}); its result could not be trusted. Please report this as a bug.`
          : KEEPS_RUNNING;
      report("mcpscope's main thread", what, at, tail);
    } catch (failure) {
      state.write(
        `${state.name}: an unexpected error could not be reported (${describe(failure).what}); stopping (exit code ${UNEXPECTED_EXIT_CODE}).`,
      );
      stops = true;
    } finally {
      state.reporting = false;
    }
    if (stops) exit(UNEXPECTED_EXIT_CODE);
  };
}

/**
 * Installs the policy for this process's main thread (proxy/app/cli.ts, before any subcommand runs).
 * A second call replaces the first one's options.
 */
export function installLastResort(options: LastResortOptions): void {
  currentHandle = lastResortHandler(options);
  if (installed) return;
  installed = true;
  process.on('uncaughtException', (err) => currentHandle(err));
  process.on('unhandledRejection', (reason) => currentHandle(reason));
}

let installed = false;
let currentHandle: (err: unknown) => void = () => undefined;

/**
 * The main thread's side of the proxy thread's policy: what its worker posted, said here and
 * recorded by `record` (that mcpscope's store: a process may run several).
 */
export function reportFromProxyThread(p: ProxyThreadProblem, record: UnexpectedErrorHook): void {
  report(
    "mcpscope's proxy thread",
    p.what,
    p.at,
    p.fatal
      ? 'The proxy thread stops; mcpscope starts it again on the same ports (requests in flight are cut off). Please report this as a bug.'
      : KEEPS_RUNNING,
    [record],
  );
}

/** What startMcpscope records into: its store (structurally: this module imports no store, the proxy thread loads it). */
export interface ProblemStore {
  append(e: UnsequencedEvent): unknown;
  commit(): void;
  subscribe(listener: (batch: readonly McpscopeEvent[]) => void, name?: string): () => void;
}

/** Tests only: `MCPSCOPE_TEST_THROW=main-thread|proxy-thread` makes a request carrying this header throw in a callback of its connection. */
export const TEST_THROW_HEADER = 'x-mcpscope-test-throw';

/**
 * startMcpscope's hook: each unexpected error becomes a `problem` event (code `internal-error`) in
 * `store`, redacted. Returns the hook (for the proxy thread's reports) and its removal. With
 * MCPSCOPE_TEST_THROW=main-thread (set by tests only) an exchange whose request carries
 * TEST_THROW_HEADER makes the main thread throw in a callback (setImmediate, outside every catch).
 */
export function recordUnexpectedErrors(
  store: ProblemStore,
  redact: (text: string) => string,
): { record: UnexpectedErrorHook; stop: () => void } {
  const record: UnexpectedErrorHook = (text) => {
    store.append({ type: 'problem', ts: Date.now(), level: 'error', code: 'internal-error', text: redact(text) });
    store.commit();
  };
  const stops = [onUnexpectedError(record)];
  if (process.env.MCPSCOPE_TEST_THROW === 'main-thread') {
    const thrown = new Set<string>();
    stops.push(
      store.subscribe((batch) => {
        for (const e of batch)
          if (e.type === 'exchange' && e.exchange.requestHeaders[TEST_THROW_HEADER] !== undefined && !thrown.has(e.exchange.id)) {
            thrown.add(e.exchange.id);
            setImmediate(() => {
              throw new Error(`test hook: thrown in a callback of exchange ${e.exchange.id} (MCPSCOPE_TEST_THROW=main-thread)`);
            });
          }
      }, 'the MCPSCOPE_TEST_THROW test hook'),
    );
  }
  return { record, stop: () => stops.forEach((s) => s()) };
}

/** What the proxy thread posts for an unexpected error. */
export interface ProxyThreadProblem {
  type: 'problem';
  what: string;
  at?: string;
  fatal: boolean;
}

/**
 * The proxy thread's policy (proxy/wire/thread/proxy-worker.ts): an uncaught exception or unhandled
 * rejection is posted to the main thread and the thread keeps forwarding; a fatal one ends it
 * after posting (the main thread starts it again).
 */
export function installInProxyThread(post: (m: ProxyThreadProblem) => void, exit: (code: number) => void = (c) => process.exit(c)): void {
  const handle = (err: unknown) => {
    const { what, at } = describe(err);
    const fatal = isFatal(err);
    try {
      post({ type: 'problem', what, ...(at ? { at } : {}), fatal });
    } catch {
      // The port is closed (the thread is ending): nothing to tell.
    }
    if (fatal) exit(UNEXPECTED_EXIT_CODE);
  };
  process.on('uncaughtException', handle);
  process.on('unhandledRejection', handle);
}
