/**
 * proxy/wire/last-resort.ts's policy, driven directly (installing it would take over this test
 * process's own uncaughtException handling; test/e2e/last-resort.test.ts runs it in the CLI):
 * plain words once per distinct error, bounded; the hooks hear it; a long-running process keeps
 * running, a one-shot command and a fatal error stop with 70.
 */
import { describe, expect, it } from 'vitest';
import {
  isFatal,
  lastResortHandler,
  onUnexpectedError,
  recordUnexpectedErrors,
  reportFromProxyThread,
  UNEXPECTED_EXIT_CODE,
} from '../../../proxy/wire/last-resort.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';

function harness(keepRunning: boolean) {
  const lines: string[] = [];
  const exits: number[] = [];
  const heard: string[] = [];
  const stop = onUnexpectedError((t) => heard.push(t));
  const handle = lastResortHandler({ name: 'mcpscope', keepRunning, write: (l) => lines.push(l), exit: (c) => void exits.push(c) });
  return { lines, exits, heard, handle, stop };
}

describe('the last-resort policy', () => {
  it('says an unexpected error once in plain words, counts repeats, keeps running', () => {
    const h = harness(true);
    const err = new TypeError(`Cannot read properties of undefined (reading 'x') ${Math.random()}`);
    for (let i = 0; i < 12; i++) h.handle(err);
    h.stop();
    expect(h.exits).toEqual([]);
    expect(h.lines).toHaveLength(2);
    expect(h.lines[0]).toMatch(
      /^mcpscope: an unexpected error in mcpscope's main thread: TypeError: Cannot read properties of undefined \(reading 'x'\) [\d.]+ \(at .+last-resort\.test\.ts:\d+:\d+\)\. mcpscope keeps running and forwarding; what it was doing for that one connection may be incomplete\. Please report this as a bug\.$/,
    );
    expect(h.lines[1]).toMatch(
      /^mcpscope: the unexpected error in mcpscope's main thread "TypeError: .*" happened again \(10 times so far\)\.$/,
    );
    expect(h.heard).toEqual(h.lines.map((l) => l.slice('mcpscope: '.length)));
  });

  it('takes a rejection with any value, and a line break in a message stays on one line', () => {
    const h = harness(true);
    h.handle(`not an error\nmcpscope: forged ${Math.random()}`);
    h.stop();
    expect(h.lines).toHaveLength(1);
    expect(h.lines[0]).toMatch(
      /^mcpscope: an unexpected error in mcpscope's main thread: a thrown value that is not an Error: not an error mcpscope: forged/,
    );
    expect(h.lines[0]).not.toContain('\n');
  });

  it('a one-shot command says it and stops with 70', () => {
    const h = harness(false);
    h.handle(new Error(`one-shot ${Math.random()}`));
    h.stop();
    expect(h.exits).toEqual([UNEXPECTED_EXIT_CODE]);
    expect(h.lines[0]).toMatch(/It stops \(exit code 70\); its result could not be trusted\./);
  });

  it('stops for what breaks the process itself, whatever the command', () => {
    expect(isFatal(Object.assign(new Error('internal'), { code: 'ERR_INTERNAL_ASSERTION' }))).toBe(true);
    expect(isFatal(new RangeError('Array buffer allocation failed'))).toBe(true);
    expect(isFatal(new TypeError('x is not a function'))).toBe(false);
    expect(isFatal(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(false);
    const h = harness(true);
    h.handle(Object.assign(new Error(`assertion ${Math.random()}`), { code: 'ERR_INTERNAL_ASSERTION' }));
    h.stop();
    expect(h.exits).toEqual([UNEXPECTED_EXIT_CODE]);
    expect(h.lines[0]).toMatch(/leaves mcpscope in a state it cannot trust, so it stops now \(exit code 70\)/);
  });

  it('prints at most 20 distinct errors, then says that more are only recorded', () => {
    const h = harness(true);
    for (let i = 0; i < 40; i++) h.handle(new Error(`distinct ${i} ${Math.random()}`));
    h.stop();
    // Earlier tests printed some already: the bound is for the process.
    expect(h.lines.length).toBeLessThanOrEqual(21);
    expect(h.lines.at(-1)).toBe('mcpscope: more unexpected errors happened; they are recorded, not printed here.');
    expect(h.heard).toHaveLength(40);
  });

  it("records each one as a problem event in the store, redacted; the proxy thread's only in its own mcpscope's", () => {
    const store = new EventStore();
    const other = new EventStore();
    const mine = recordUnexpectedErrors(store, (t) => t.replace(/hunter2/g, '[redacted]'));
    const theirs = recordUnexpectedErrors(other, (t) => t);
    const h = harness(true);
    h.handle(new Error(`password hunter2 ${Math.random()}`));
    reportFromProxyThread({ type: 'problem', what: `Error: on the proxy thread ${Math.random()}`, fatal: false }, mine.record);
    mine.stop();
    theirs.stop();
    h.stop();
    const problems = store.snapshot().filter((e) => e.type === 'problem');
    expect(problems.map((p) => [p.type === 'problem' && p.code, p.type === 'problem' && p.level])).toEqual([
      ['internal-error', 'error'],
      ['internal-error', 'error'],
    ]);
    expect(JSON.stringify(problems)).not.toContain('hunter2');
    expect(JSON.stringify(problems[1])).toContain("an unexpected error in mcpscope's proxy thread: Error: on the proxy thread");
    expect(other.snapshot().filter((e) => e.type === 'problem')).toHaveLength(1);
  });
});
