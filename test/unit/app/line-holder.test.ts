/**
 * The stdio line holder (proxy/app/stdio/line-holder.ts): lines split anywhere, CRLF kept, a matching
 * line held with its successors behind it in order, edits, answers, the time limit, lines too
 * long to hold, and mcpscope's own lines inserted at line boundaries only.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BreakpointRegistry } from '../../../proxy/core/rules/breakpoint-rules.js';
import { CallBook } from '../../../proxy/addons/breakpoints/wire/wire-peek.js';
import { HOLD_MAX_BYTES, type HeldReport, type PausedOutcome } from '../../../proxy/core/rules/breakpoint-types.js';
import { LineHolder, type HeldModification } from '../../../proxy/app/stdio/line-holder.js';
import type { Direction } from '../../../proxy/core/model/events.js';

interface Harness {
  holder: LineHolder;
  /** Everything written, as one string. */
  written(): string;
  /** The order of things: writes, records, modifications, held/released. */
  log: string[];
  held: HeldReport[];
  released: [string, PausedOutcome][];
  answers: string[];
  notes: string[];
  mods: HeldModification[];
  holding: boolean[];
}

function harness(
  dir: Direction,
  registry: BreakpointRegistry,
  opts: { book?: CallBook; holdMs?: number; midLine?: boolean } = {},
): Harness {
  const out: Buffer[] = [];
  let n = 0;
  const h: Omit<Harness, 'holder' | 'written'> = { log: [], held: [], released: [], answers: [], notes: [], mods: [], holding: [] };
  const holder = new LineHolder({
    dir,
    registry,
    book: opts.book ?? new CallBook(),
    xid: 'p',
    holdMs: () => opts.holdMs ?? 60_000,
    nextId: () => `s${++n}`,
    midLine: opts.midLine,
    hooks: {
      write: (b, sentBy) => {
        out.push(b);
        h.log.push(`write${sentBy ? '(mcpscope)' : ''} ${b.toString()}`);
      },
      record: (b) => h.log.push(`record ${b.toString()}`),
      answer: (b) => h.answers.push(b.toString()),
      modification: (m) => {
        h.mods.push(m);
        h.log.push(`modification ${m.after}`);
      },
      held: (r) => {
        h.held.push(r);
        h.log.push(`held ${r.id}`);
      },
      released: (id, outcome) => {
        h.released.push([id, outcome]);
        h.log.push(`released ${id} ${outcome}`);
      },
      note: (_code, text) => h.notes.push(text),
      onHolding: (holding) => h.holding.push(holding),
    },
  });
  return { ...h, holder, written: () => Buffer.concat(out).toString() };
}

const line = (v: unknown, end = '\n') => JSON.stringify(v) + end;
const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

afterEach(() => vi.useRealTimers());

describe('LineHolder', () => {
  it('relays every byte unchanged, split at any point, CRLF and non-JSON lines included', () => {
    const text =
      line(call(1, 'a')) +
      'not json\r\n' +
      line({ jsonrpc: '2.0', method: 'notifications/x' }, '\r\n') +
      line(call(2, 'ü😀')) +
      '{"partial';
    const rules = new BreakpointRegistry();
    rules.add({ match: { dir: 'c2s', method: 'nothing/matches' } });
    const bytes = Buffer.from(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const h = harness('c2s', rules);
      h.holder.push(bytes.subarray(0, cut));
      h.holder.push(bytes.subarray(cut));
      expect(h.written() + h.holder.takePartial().toString()).toBe(text);
      expect(h.held).toEqual([]);
    }
    // Byte at a time.
    const h = harness('c2s', rules);
    for (let i = 0; i < bytes.length; i++) h.holder.push(bytes.subarray(i, i + 1));
    expect(h.written()).toBe(text.slice(0, text.lastIndexOf('\n') + 1));
  });

  it('holds a matching line; the lines after it wait in order; an edit is written with the line’s own ending', () => {
    const rules = new BreakpointRegistry();
    rules.add({ id: 'b', match: { dir: 'c2s', tool: 'hold-me' } });
    const h = harness('c2s', rules);
    h.holder.push(Buffer.from(line(call(1, 'free')) + line(call(2, 'hold-me'), '\r\n') + line(call(3, 'free')).slice(0, 10)));
    expect(h.holder.holding).toBe(true);
    expect(h.holding).toEqual([true]);
    expect(h.held).toMatchObject([
      { id: 's1', xid: 'p', dir: 'c2s', carrier: 'stdio', kind: 'request', method: 'tools/call', name: 'hold-me', rule: 'b' },
    ]);
    expect(h.held[0].text).toBe(JSON.stringify(call(2, 'hold-me')));
    h.holder.push(Buffer.from(line(call(3, 'free')).slice(10) + line(call(4, 'free'))));
    expect(h.written()).toBe(line(call(1, 'free')));

    const edited = { ...call(2, 'hold-me'), params: { name: 'hold-me', arguments: { x: 1 } } };
    expect(h.holder.act('nope', { action: 'resume' })).toBe(false);
    expect(h.holder.act('s1', { action: 'resume', message: edited })).toBe(true);
    expect(h.written()).toBe(line(call(1, 'free')) + line(edited, '\r\n') + line(call(3, 'free')) + line(call(4, 'free')));
    expect(h.mods).toEqual([
      {
        what: 'breakpoint-edit',
        pausedId: 's1',
        before: JSON.stringify(call(2, 'hold-me')),
        after: JSON.stringify(edited),
        text: expect.stringMatching(/edited/),
        edited: 'c2s',
      },
    ]);
    // The modification comes before the edited line it describes.
    expect(h.log.indexOf(`modification ${JSON.stringify(edited)}`)).toBeLessThan(h.log.indexOf(`write ${line(edited, '\r\n')}`));
    expect(h.released).toEqual([['s1', 'edited']]);
    expect(h.holding).toEqual([true, false]);
  });

  it('matches a response by the method and tool of the request it answers', () => {
    const rules = new BreakpointRegistry();
    rules.add({ id: 'r', match: { dir: 's2c', method: 'tools/call', tool: 'echo' } });
    const book = new CallBook();
    const c2s = harness('c2s', rules, { book });
    const s2c = harness('s2c', rules, { book });
    c2s.holder.push(Buffer.from(line(call(7, 'echo')) + line(call(8, 'other'))));
    s2c.holder.push(Buffer.from(line({ jsonrpc: '2.0', id: 8, result: {} })));
    expect(s2c.held).toEqual([]);
    s2c.holder.push(Buffer.from(line({ jsonrpc: '2.0', id: 7, result: { content: [] } })));
    expect(s2c.held).toMatchObject([{ kind: 'response', method: 'tools/call', name: 'echo', rule: 'r' }]);
    s2c.holder.act('s1', { action: 'drop' });
    expect(s2c.written()).toBe(line({ jsonrpc: '2.0', id: 8, result: {} }));
    expect(s2c.mods[0]).toMatchObject({ what: 'breakpoint-drop', after: '(dropped)' });
    expect(s2c.released).toEqual([['s1', 'dropped']]);
  });

  it('answers a held request toward the requester and records the request as it came', () => {
    const rules = new BreakpointRegistry();
    rules.add({ match: { dir: 'c2s', method: 'tools/call' } });
    const h = harness('c2s', rules);
    h.holder.push(Buffer.from(line(call(5, 'x'), '\r\n')));
    const answer = { jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'mine' }] } };
    h.holder.act('s1', { action: 'respond', message: answer });
    expect(h.written()).toBe('');
    expect(h.answers).toEqual([line(answer, '\r\n')]);
    expect(h.log).toEqual([
      'held s1',
      `record ${line(call(5, 'x'), '\r\n')}`,
      `modification (answered: ${JSON.stringify(answer)})`,
      'released s1 responded',
    ]);
  });

  it('lets a held line go on unchanged at its time limit', () => {
    vi.useFakeTimers();
    const rules = new BreakpointRegistry();
    rules.add({ match: { dir: 's2c' } });
    const h = harness('s2c', rules, { holdMs: 500 });
    h.holder.push(Buffer.from(line({ jsonrpc: '2.0', method: 'notifications/a' })));
    expect(h.held[0].expiresAt - h.held[0].since).toBe(500);
    vi.advanceTimersByTime(499);
    expect(h.written()).toBe('');
    vi.advanceTimersByTime(1);
    expect(h.written()).toBe(line({ jsonrpc: '2.0', method: 'notifications/a' }));
    expect(h.released).toEqual([['s1', 'timed-out']]);
    expect(h.mods).toMatchObject([{ what: 'breakpoint', before: h.held[0].text, after: h.held[0].text }]);
  });

  it('relays a line longer than HOLD_MAX_BYTES unchanged, unchecked, and says so', () => {
    const rules = new BreakpointRegistry();
    rules.add({ match: { dir: 's2c' } }); // would hold every line
    const h = harness('s2c', rules);
    const big = line({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(HOLD_MAX_BYTES + 10) } });
    const bytes = Buffer.from(big + line({ jsonrpc: '2.0', id: 2, result: {} }));
    for (let i = 0; i < bytes.length; i += 65536) h.holder.push(bytes.subarray(i, i + 65536));
    // The big line went through whole; the small one after it is held as usual.
    expect(h.written()).toBe(big);
    expect(h.notes).toHaveLength(1);
    expect(h.notes[0]).toMatch(/longer than 1048576 bytes .* relayed unchanged/);
    expect(h.held).toHaveLength(1);
    expect(h.held[0].text).toBe(JSON.stringify({ jsonrpc: '2.0', id: 2, result: {} }));
  });

  it('inserts its own lines only at a line boundary of what it writes', () => {
    const rules = new BreakpointRegistry();
    const h = harness('c2s', rules, { midLine: true });
    const own = line({ jsonrpc: '2.0', id: 'mcpscope-1', method: 'ping' });
    h.holder.insert(Buffer.from(own));
    expect(h.written()).toBe(''); // the destination is mid-line (the pipe's last chunk ended inside a line)
    h.holder.push(Buffer.from('tail of a line"}\n{"jsonrpc":"2.0","id":1,'));
    expect(h.written()).toBe(`tail of a line"}\n${own}`);
    expect(h.log[1]).toBe(`write(mcpscope) ${own}`);
    h.holder.insert(Buffer.from(own)); // between lines now: at once
    expect(h.written()).toBe(`tail of a line"}\n${own}${own}`);
    expect(h.holder.takePartial().toString()).toBe('{"jsonrpc":"2.0","id":1,');
  });
});
