import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { curlFor, formatBytes, formatClock, formatMs, jsonPretty, rowTitle, shellQuote, truncate } from '../../ui/src/state/format';
import { TimelineStore } from '../../ui/src/state/store';
import type { ExchangeInfo } from '../../proxy/core/model/events';
import { scenario } from './fixtures';

describe('formatMs', () => {
  it('picks a readable unit', () => {
    expect(formatMs(0.42)).toBe('0.42 ms');
    expect(formatMs(3.21)).toBe('3.2 ms');
    expect(formatMs(850)).toBe('850 ms');
    expect(formatMs(849.6)).toBe('850 ms');
    expect(formatMs(999.7)).toBe('1.00 s');
    expect(formatMs(1240)).toBe('1.24 s');
    expect(formatMs(12_345)).toBe('12.3 s');
    expect(formatMs(123_000)).toBe('2 min 3 s');
    expect(formatMs(120_000)).toBe('2 min');
    expect(formatMs(3_720_000)).toBe('1 h 2 min');
    expect(formatMs(undefined)).toBe('—');
    expect(formatMs(NaN)).toBe('—');
    expect(formatMs(-5)).toBe('0.00 ms');
  });
});

describe('formatBytes', () => {
  it('uses B, KB, MB', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(532)).toBe('532 B');
    expect(formatBytes(1434)).toBe('1.4 KB');
    expect(formatBytes(143_360)).toBe('140 KB');
    expect(formatBytes(3.2 * 1024 * 1024)).toBe('3.2 MB');
    expect(formatBytes(1024 * 1024 - 1)).toBe('1.0 MB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5.0 GB');
  });
});

describe('formatClock', () => {
  it('shows local HH:MM:SS.mmm', () => {
    const d = new Date(2026, 4, 1, 9, 5, 7, 42);
    expect(formatClock(d.getTime())).toBe('09:05:07.042');
    expect(formatClock(d.getTime() + 0.9)).toBe('09:05:07.042');
    expect(formatClock(new Date(2026, 0, 1, 23, 59, 59, 999).getTime())).toBe('23:59:59.999');
  });
});

describe('truncate and jsonPretty', () => {
  it('cuts with an ellipsis, within the limit', () => {
    expect(truncate('hello', 10)).toBe('hello');
    expect(truncate('hello world', 6)).toBe('hello…');
    expect(truncate('abc', 0)).toBe('');
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 50 }), (s, max) => {
        const t = truncate(s, max);
        expect(t.length).toBeLessThanOrEqual(max);
        if (s.length <= max) expect(t).toBe(s);
        else if (max > 0) expect(t.endsWith('…')).toBe(true);
        else expect(t).toBe('');
      }),
    );
    // No lone surrogate at the cut.
    expect(truncate('ab🙂cd', 4)).toBe('ab…');
  });

  it('pretty-prints JSON and never throws', () => {
    expect(jsonPretty({ a: [1, 2] })).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}');
    expect(jsonPretty(undefined)).toBe('');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => jsonPretty(cyclic)).not.toThrow();
    expect(jsonPretty({ n: 10n })).toContain('"10"');
  });
});

describe('rowTitle', () => {
  it('names each kind of row', () => {
    const { events, seq } = scenario();
    const store = new TimelineStore();
    store.ingest(events);
    expect(rowTitle(store.row(`c${seq.slowTask}`)!)).toBe('tools/call slow_task');
    expect(rowTitle(store.row(`c${seq.sampling}`)!)).toBe('sampling/createMessage');
    expect(rowTitle(store.row(`n${seq.slowLog}`)!)).toBe('notifications/message info [slow_task]: finished step 1/4');
    expect(rowTitle(store.row(`n${seq.initialized}`)!)).toBe('notifications/initialized');
    expect(rowTitle(store.row(`o${seq.orphan}`)!)).toBe('response to unknown id 99');
    expect(rowTitle(store.row(`p${seq.problem}`)!)).toBe('invalid-json: An SSE data line was not valid JSON.');
  });
});

/** Reads back what a POSIX shell makes of a command line (quotes, escapes, line continuations). */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new Error('unterminated quote');
      cur += command.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '\\') {
      const next = command[i + 1];
      if (next === '\n') i++;
      else {
        cur += next;
        inWord = true;
        i++;
      }
    } else if (c === ' ' || c === '\n' || c === '\t') {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else if (c === '#' && !inWord) {
      const nl = command.indexOf('\n', i);
      i = nl < 0 ? command.length : nl;
    } else {
      if ('$`"|&;<>(){}*?[]~!'.includes(c)) throw new Error(`unquoted shell metacharacter ${c}`);
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

const exchange = (init: Partial<ExchangeInfo> = {}): ExchangeInfo => ({
  id: 'x7',
  sessionId: 's1',
  method: 'POST',
  url: '/mcp?x=1',
  requestHeaders: {
    host: '127.0.0.1:6481',
    'content-length': '120',
    connection: 'keep-alive',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': 'abc',
    authorization: 'Bearer [redacted]',
  },
  startedAt: 0,
  requestBytes: 120,
  responseBytes: 0,
  hints: [],
  ...init,
});

describe('shellQuote and curlFor', () => {
  it('quotes anything so the shell reads it back unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(shellWords(shellQuote(s))).toEqual([s]);
      }),
    );
  });

  it('replays the request through the proxy', () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"it's $HOME \`x\` \\"q\\""}}}`;
    const cmd = curlFor(exchange({ responseType: 'text/event-stream', carrier: 'post-sse' }), body, 'http://127.0.0.1:6481/');
    const lines = cmd.split('\n');
    expect(lines[0]).toMatch(/^# .*authorization.*\[redacted\]/);
    const words = shellWords(cmd);
    expect(words[0]).toBe('curl');
    expect(words).toContain('-N');
    expect(words).toContain('http://127.0.0.1:6481/mcp?x=1');
    expect(words).not.toContain('-X');
    const headers = words.filter((_, i) => words[i - 1] === '-H');
    expect(headers).toEqual([
      'content-type: application/json',
      'accept: application/json, text/event-stream',
      'mcp-session-id: abc',
      'authorization: Bearer [redacted]',
    ]);
    expect(words[words.indexOf('--data-raw') + 1]).toBe(body);
  });

  it('omits -N and the redaction note when they do not apply, and keeps other methods', () => {
    const plain = curlFor(
      exchange({ requestHeaders: { accept: 'application/json' }, responseType: 'application/json', carrier: 'post-json' }),
      '{}',
      'http://127.0.0.1:6481',
    );
    expect(plain.startsWith('curl ')).toBe(true);
    expect(shellWords(plain)).not.toContain('-N');
    const del = shellWords(curlFor(exchange({ method: 'DELETE', requestHeaders: { 'mcp-session-id': 'abc' } }), undefined, 'http://h:1'));
    expect(del.slice(0, 3)).toEqual(['curl', '-X', 'DELETE']);
    expect(del).not.toContain('--data-raw');
    const get = shellWords(
      curlFor(
        exchange({ method: 'GET', url: '/mcp', requestHeaders: { accept: 'text/event-stream', 'x-multi': ['a', 'b'] } }),
        undefined,
        'http://h:1',
      ),
    );
    expect(get).toEqual(['curl', '-N', 'http://h:1/mcp', '-H', 'accept: text/event-stream', '-H', 'x-multi: a', '-H', 'x-multi: b']);
  });
});
