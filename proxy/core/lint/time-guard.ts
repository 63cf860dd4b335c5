/**
 * A time limit for synchronous work the linter cannot bound by itself: compiling a peer's JSON
 * Schema with ajv and checking a value against it. JSON Schema validation is not
 * linear in general — `anyOf` over a recursive `$ref` is exponential in the value's depth,
 * `uniqueItems` quadratic in an array's length, a `format`'s regular expression may backtrack —
 * and ajv's generated code cannot be interrupted from JavaScript. V8 can: a script run through
 * `node:vm` with `timeout` is stopped by a watchdog thread when its time is up (TerminateExecution,
 * which also stops a regular expression mid-backtrack), and `runInContext` throws
 * ERR_SCRIPT_EXECUTION_TIMEOUT on the thread that ran it.
 *
 * The one module of proxy/lint/ that imports a Node builtin (eslint.config.js names it): the rest of
 * the linter stays builtin-free. Each guarded call starts a watchdog thread (≈ 0.1 ms on a 2-core VM,
 * bench/lint.ts), so the checker uses it only where a check's cost is not bounded in advance
 * (tool-schemas.ts).
 */
import { Script, createContext } from 'node:vm';

/** What `bounded` returns when the work ran out of time: it was stopped where it was. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

const context = createContext({ __mcpscopeJob: undefined as (() => unknown) | undefined });
const script = new Script('__mcpscopeJob()', { filename: 'mcpscope-lint-guard' });

/**
 * Runs `job` on this thread, stopping it after `ms` milliseconds. Whatever it was changing when it
 * was stopped may be half-changed: the caller throws that state away. Errors the job throws are
 * thrown on.
 */
export function bounded<T>(job: () => T, ms: number): T | typeof TIMED_OUT {
  (context as { __mcpscopeJob?: () => unknown }).__mcpscopeJob = job;
  try {
    return script.runInContext(context, { timeout: Math.max(1, Math.ceil(ms)) }) as T;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return TIMED_OUT;
    throw err;
  } finally {
    (context as { __mcpscopeJob?: () => unknown }).__mcpscopeJob = undefined;
  }
}
