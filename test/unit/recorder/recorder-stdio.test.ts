/**
 * The recorder on wrapped stdio processes, driven without processes: scripted `stdio-*` record
 * sequences (as the wrapper would capture them, chunked at awkward places) → events. Also the
 * capture queue's overflow on stdio streams.
 */
import { describe, expect, it } from 'vitest';
import { Recorder } from '../../../proxy/recorder/recorder.js';
import { createRedactor } from '../../../proxy/recorder/redact/redact.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';
import { CaptureQueue } from '../../../proxy/wire/capture/capture-queue.js';
import type { WireRecord } from '../../../proxy/wire/capture/wire-records.js';
import type { LogEvent, McpscopeEvent, MessageEvent, ProblemEvent, SessionInfo } from '../../../proxy/core/model/events.js';

const TOKEN = 'stdio-test-token-0123456789';
const enc = (s: string) => new TextEncoder().encode(s);
const line = (v: unknown) => `${JSON.stringify(v)}\n`;

/** Splits bytes at the given offsets (in any order). */
function pieces(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const c of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    if (c > at) out.push(bytes.subarray(at, c));
    at = c;
  }
  return out;
}

/** Builds the records of one process with an increasing clock. */
class Proc {
  t = 5_000;
  constructor(readonly xid = 'p') {}
  ts(): number {
    this.t += 10;
    return this.t;
  }
  start(extra: Partial<Extract<WireRecord, { t: 'stdio-start' }>> = {}): WireRecord {
    return {
      t: 'stdio-start',
      xid: this.xid,
      ts: this.ts(),
      command: 'node',
      args: ['server.js', '--name', 'my server'],
      pid: 4242,
      cwd: '/home/me',
      ...extra,
    };
  }
  out(text: string | Uint8Array, cuts: number[] = []): WireRecord[] {
    return pieces(typeof text === 'string' ? enc(text) : text, cuts).map((chunk) => ({
      t: 'stdio-chunk',
      xid: this.xid,
      ts: this.ts(),
      dir: 's2c',
      chunk,
    }));
  }
  in(text: string | Uint8Array, cuts: number[] = []): WireRecord[] {
    return pieces(typeof text === 'string' ? enc(text) : text, cuts).map((chunk) => ({
      t: 'stdio-chunk',
      xid: this.xid,
      ts: this.ts(),
      dir: 'c2s',
      chunk,
    }));
  }
  err(text: string, cuts: number[] = []): WireRecord[] {
    return pieces(enc(text), cuts).map((chunk) => ({ t: 'stdio-stderr', xid: this.xid, ts: this.ts(), chunk }));
  }
  exit(code: number | null, signal: string | null = null): WireRecord {
    return { t: 'stdio-exit', xid: this.xid, ts: this.ts(), code, signal };
  }
}

function setup() {
  const store = new EventStore();
  const recorder = new Recorder({ store, redactor: createRedactor({ extraSecrets: [TOKEN] }) });
  return { store, recorder, feed: (records: WireRecord[]) => recorder.handle(records) };
}

const of = <T extends McpscopeEvent['type']>(store: EventStore, type: T) =>
  store.snapshot().filter((e): e is Extract<McpscopeEvent, { type: T }> => e.type === type);
const messages = (store: EventStore): MessageEvent[] => of(store, 'message');
// Spec violations aside: the scripted processes skip notifications/initialized (the linter's own tests read those).
const problems = (store: EventStore): ProblemEvent[] => of(store, 'problem').filter((p) => p.code !== 'spec-violation');
const logs = (store: EventStore, source?: LogEvent['source']): string[] =>
  of(store, 'log')
    .filter((l) => source === undefined || l.source === source)
    .map((l) => l.text);
const sessionOf = (store: EventStore, id = 's1'): SessionInfo => {
  const s = store.sessions.get(id);
  if (!s) throw new Error(`no session ${id}`);
  return s;
};

const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'desk', version: '1.0' } },
};
const INIT_RESULT = {
  jsonrpc: '2.0',
  id: 0,
  result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'stdio-server', version: '3.1' } },
};
const CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: 'héllo wörld' }, _meta: { progressToken: 7 } },
};
const PROGRESS = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1, total: 2 } };
const RESULT = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'héllo wörld' }] } };

describe('Recorder: a stdio process', () => {
  function conversation(options: { crlf?: boolean } = {}) {
    const { store, feed } = setup();
    const p = new Proc();
    const nl = (s: string) => (options.crlf ? s.replace(/\n$/, '\r\n') : s);
    feed([p.start()]);
    const input = enc(nl(line(INIT)) + nl(line({ jsonrpc: '2.0', method: 'notifications/initialized' })) + nl(line(CALL)));
    // Cut inside a key, right after a line end, inside the "é" (two bytes), and between CR and LF.
    const crlfAt = Buffer.from(input).indexOf('\r\n');
    feed(p.in(input, [3, line(INIT).length + (options.crlf ? 1 : 0), Buffer.from(input).indexOf(0xc3) + 1, crlfAt + 1]));
    const output = enc(nl(line(INIT_RESULT)) + nl(line(PROGRESS)) + nl(line(RESULT)));
    feed(p.out(output, [1, 17, Buffer.from(output).lastIndexOf(0xc3) + 1, output.length - 1]));
    feed([p.exit(0)]);
    return { store, input, output };
  }

  for (const crlf of [false, true]) {
    it(`turns each line into a message, whatever the chunking${crlf ? ' (CRLF line ends)' : ''}`, () => {
      const { store } = conversation({ crlf });
      const ms = messages(store);
      expect(ms.map((m) => [m.dir, m.kind, m.method, m.id, m.carrier])).toEqual([
        ['c2s', 'request', 'initialize', 0, 'stdio'],
        ['c2s', 'notification', 'notifications/initialized', undefined, 'stdio'],
        ['c2s', 'request', 'tools/call', 1, 'stdio'],
        ['s2c', 'response', 'initialize', 0, 'stdio'],
        ['s2c', 'notification', 'notifications/progress', undefined, 'stdio'],
        ['s2c', 'response', 'tools/call', 1, 'stdio'],
      ]);
      // No HTTP exchange carries stdio traffic.
      expect(ms.every((m) => !('exchangeId' in m))).toBe(true);
      expect(store.exchanges.size).toBe(0);
      // The multi-byte characters survived the cut inside them.
      expect(ms[2].jsonrpc).toEqual(CALL);
      expect(ms[5].jsonrpc).toEqual(RESULT);
      expect(problems(store)).toEqual([]);
    });
  }

  it('pairs responses and links progress, as on HTTP', () => {
    const { store } = conversation();
    const ms = messages(store);
    const [init, , call, initRes, progress, result] = ms;
    expect(initRes.pair).toBe(init.seq);
    expect(result.pair).toBe(call.seq);
    expect(result.name).toBe('echo');
    expect(progress.pair).toBe(call.seq);
    expect(progress.progress).toEqual({ progress: 1, total: 2 });
    expect(call.progressToken).toBe(7);
  });

  it('locates each line by byte offset and length within its stream', () => {
    const { store, input, output } = conversation({ crlf: true });
    const ms = messages(store);
    const inText = Buffer.from(input);
    const outText = Buffer.from(output);
    for (const m of ms) {
      const bytes = (m.dir === 'c2s' ? inText : outText)
        .subarray(m.location!.offset, m.location!.offset + m.location!.length)
        .toString('utf8');
      expect(bytes.endsWith('\r\n')).toBe(true);
      expect(JSON.parse(bytes)).toEqual(m.jsonrpc);
    }
  });

  it('makes the process a stdio session named by its command line, closed as process-exited', () => {
    const { store } = conversation();
    expect(store.sessions.size).toBe(1);
    expect(sessionOf(store)).toEqual({
      id: 's1',
      transport: 'stdio',
      target: "node server.js --name 'my server'",
      protocolVersion: '2025-06-18',
      clientInfo: { name: 'desk', version: '1.0' },
      serverInfo: { name: 'stdio-server', version: '3.1' },
      clientCapabilities: {},
      serverCapabilities: { tools: {} },
      startedAt: 5010,
      endedAt: expect.any(Number),
      status: 'closed',
      closeReason: 'process-exited',
      counts: { messages: 6, requests: 2, pending: 0, errors: 0, exchanges: 0 },
    });
    expect(logs(store, 'mcpscope')).toEqual([
      "Server process started (pid 4242, working directory /home/me): node server.js --name 'my server'",
      'The server process exited with code 0.',
    ]);
  });

  it('handles a whole process in one batch (start, both directions, stderr, exit)', () => {
    const { store, feed } = setup();
    const p = new Proc();
    const committed: McpscopeEvent[][] = [];
    store.subscribe((b) => committed.push([...b]));
    feed([p.start(), ...p.in(line(INIT)), ...p.err('booting\n'), ...p.out(line(INIT_RESULT)), p.exit(0)]);
    expect(committed).toHaveLength(1);
    expect(messages(store).map((m) => m.kind)).toEqual(['request', 'response']);
    expect(logs(store, 'stderr')).toEqual(['booting']);
    expect(sessionOf(store).status).toBe('closed');
    // The session upsert after the batch carries the final state.
    const lastSession = committed[0].filter((e) => e.type === 'session').at(-1);
    expect(lastSession).toMatchObject({
      session: { status: 'closed', closeReason: 'process-exited', serverInfo: { name: 'stdio-server' } },
    });
  });

  it('reports a non-JSON stdout line (a banner) as a problem in plain words, and keeps going', () => {
    const { store, feed } = setup();
    const p = new Proc();
    feed([p.start(), ...p.in(line(INIT)), ...p.out(`Server v1.2 listening on stdio ${TOKEN}\n${line(INIT_RESULT)}`, [9])]);
    const [banner] = problems(store);
    expect(banner).toMatchObject({
      type: 'problem',
      sessionId: 's1',
      level: 'error',
      code: 'invalid-json',
      location: { offset: 0, length: 59 },
    });
    expect(banner.exchangeId).toBeUndefined();
    expect(banner.text).toMatch(/stdout that is not a JSON-RPC message/);
    expect(banner.text).toMatch(/breaks clients/);
    expect(banner.text).toMatch(/stderr/);
    // The offending bytes are kept, redacted.
    expect(banner.raw).toBe('Server v1.2 listening on stdio [redacted]');
    // The next line is still a message, paired with its request.
    const ms = messages(store);
    expect(ms.map((m) => m.kind)).toEqual(['request', 'response']);
    expect(ms[1].pair).toBe(ms[0].seq);
    expect(sessionOf(store).counts.errors).toBe(1);
  });

  it('calls JSON that is not JSON-RPC on stdout a problem too, and a bad stdin line the client’s', () => {
    const { store, feed } = setup();
    const p = new Proc();
    feed([p.start(), ...p.out(line({ level: 'info', msg: 'ready' })), ...p.in('hello?\n')]);
    const [out, inp] = problems(store);
    expect(out.code).toBe('not-jsonrpc');
    expect(out.text).toMatch(/The server wrote a line to stdout/);
    expect(inp.code).toBe('invalid-json');
    expect(inp.text).toMatch(/The client wrote a line to the server's stdin/);
  });

  it('turns stderr into log events, one per line, with long lines cut and a last unterminated line kept', () => {
    const { store, feed } = setup();
    const p = new Proc();
    const long = 'x'.repeat(20_000);
    feed([p.start(), ...p.err(`first line\r\nsecond ${TOKEN}\n\n${long}\nlast words`, [3, 11, 12, 40, 5000])]);
    expect(logs(store, 'stderr').slice(0, 2)).toEqual(['first line', 'second [redacted]']);
    expect(logs(store, 'stderr')).toHaveLength(3);
    feed([p.exit(1)]);
    const lines = logs(store, 'stderr');
    expect(lines).toHaveLength(4);
    expect(lines[2].startsWith('x'.repeat(8192))).toBe(true);
    expect(lines[2]).not.toContain('x'.repeat(8193));
    expect(lines[2]).toMatch(/line cut: 20001 bytes in all/);
    expect(lines[3]).toBe('last words');
    // The log events belong to the process's session.
    expect(
      of(store, 'log')
        .filter((l) => l.source === 'stderr')
        .every((l) => l.sessionId === 's1'),
    ).toBe(true);
  });

  it('says how the process ended: exit code (a failure when not 0), signal, and requests left unanswered', () => {
    const { store, feed } = setup();
    const a = new Proc('a');
    const b = new Proc('b');
    feed([a.start(), ...a.in(line(INIT) + line(CALL)), a.exit(3)]);
    feed([b.start(), b.exit(null, 'SIGTERM')]);
    expect(logs(store, 'mcpscope').filter((t) => !t.startsWith('Server process started'))).toEqual([
      'The server process exited with code 3. 2 requests were still waiting for an answer.',
      'The server process was ended by SIGTERM.',
    ]);
    expect(problems(store).map((p) => [p.sessionId, p.code])).toEqual([['s1', 'process-failed']]);
    expect(sessionOf(store, 's1')).toMatchObject({ status: 'closed', closeReason: 'process-exited', counts: { pending: 0 } });
    expect(sessionOf(store, 's2')).toMatchObject({ status: 'closed', closeReason: 'process-exited' });
  });

  it('reports stdout bytes that no newline ended when the process exits', () => {
    const { store, feed } = setup();
    const p = new Proc();
    feed([p.start(), ...p.in(line(INIT)), ...p.out(JSON.stringify(INIT_RESULT)), p.exit(0)]);
    expect(messages(store).map((m) => m.dir)).toEqual(['c2s']);
    const [unterminated] = problems(store);
    expect(unterminated).toMatchObject({ code: 'unterminated-line', level: 'warn', raw: JSON.stringify(INIT_RESULT) });
    expect(unterminated.text).toMatch(/no newline/);
  });

  it('keeps processes apart (two at once, by xid) and ignores records of a process it never saw start', () => {
    const { store, feed } = setup();
    const a = new Proc('i1:p');
    const b = new Proc('i2:p');
    feed([a.start(), b.start(), ...a.in(line(INIT)), ...b.in(line(INIT)), ...b.out(line(INIT_RESULT)), ...a.out(line(INIT_RESULT))]);
    feed([...new Proc('nobody').out(line(INIT_RESULT)), new Proc('nobody').exit(0)]);
    const ms = messages(store);
    expect(ms.map((m) => [m.sessionId, m.kind])).toEqual([
      ['s1', 'request'],
      ['s2', 'request'],
      ['s2', 'response'],
      ['s1', 'response'],
    ]);
    expect(ms[2].pair).toBe(ms[1].seq);
    expect(ms[3].pair).toBe(ms[0].seq);
    expect(store.sessions.size).toBe(2);
    expect(problems(store)).toEqual([]);
  });

  it('after lost bytes (overflow), resynchronises at the next line without blaming the server', () => {
    const { store, feed } = setup();
    const p = new Proc();
    const result = line(RESULT);
    feed([p.start(), ...p.in(line(INIT) + line(CALL)), ...p.out(result.slice(0, 20))]);
    // The rest of that line was dropped by the capture queue…
    feed([{ t: 'overflow', xid: 'p', ts: p.ts(), droppedBytes: 30, stream: 's2c' }]);
    // …and recording resumes in the middle of it.
    feed(p.out(result.slice(50) + line(INIT_RESULT)));
    const [overflow] = problems(store);
    expect(overflow).toMatchObject({ code: 'capture-overflow', level: 'warn' });
    expect(overflow.text).toMatch(/30 bytes of the server's output \(stdout\)/);
    expect(problems(store)).toHaveLength(1);
    expect(logs(store, 'mcpscope')).toContain(
      `Skipped ${Buffer.byteLength(result.slice(50))} bytes of stdout: the rest of a line whose start mcpscope did not see.`,
    );
    expect(messages(store).map((m) => [m.dir, m.method])).toEqual([
      ['c2s', 'initialize'],
      ['c2s', 'tools/call'],
      ['s2c', 'initialize'],
    ]);
  });

  it('a process joined mid-way (wrapper reconnected) says so and tolerates a cut first line', () => {
    const { store, feed } = setup();
    const p = new Proc();
    feed([p.start({ joined: true }), ...p.out('ut"}]}}\n' + line(PROGRESS)), ...p.in(line(CALL))]);
    expect(logs(store, 'mcpscope')[0]).toMatch(/started recording this process after it had started/);
    expect(problems(store)).toEqual([]);
    expect(messages(store).map((m) => m.method)).toEqual(['notifications/progress', 'tools/call']);
  });

  it('closes the session when the wrapper disconnects without reporting an exit', () => {
    const { store, feed } = setup();
    const p = new Proc();
    feed([
      p.start(),
      ...p.in(line(INIT)),
      { t: 'abort', xid: 'p', ts: p.ts(), side: 'proxy', reason: 'its mcpscope wrapper disconnected from this UI' },
    ]);
    expect(sessionOf(store)).toMatchObject({ status: 'closed', closeReason: 'wrapper-disconnected' });
    expect(logs(store, 'mcpscope').at(-1)).toMatch(/^Recording stopped: its mcpscope wrapper disconnected/);
    // Later records of that process are ignored.
    feed(p.out(line(INIT_RESULT)));
    expect(messages(store)).toHaveLength(1);
  });

  it('redacts known secrets in the command line and never lets a duplicate start open a second session', () => {
    const { store, feed } = setup();
    const p = new Proc();
    feed([p.start({ args: ['--token', TOKEN] }), p.start({ args: ['other'] })]);
    expect(store.sessions.size).toBe(1);
    expect(sessionOf(store).target).toBe('node --token [redacted]');
  });
});

describe('CaptureQueue: stdio streams', () => {
  it('drops chunk payloads per stream past the bound and names the stream in the overflow record', async () => {
    const batches: WireRecord[][] = [];
    const q = new CaptureQueue((b) => batches.push(b), { maxQueuedBytes: 10 });
    const chunk = (dir: 'c2s' | 's2c', n: number): WireRecord => ({ t: 'stdio-chunk', xid: 'p', ts: 1, dir, chunk: new Uint8Array(n) });
    q.push({ t: 'stdio-start', xid: 'p', ts: 1, command: 'x', args: [] });
    q.push(chunk('c2s', 6));
    q.push(chunk('s2c', 6)); // does not fit: s2c overflows
    q.push(chunk('c2s', 4)); // fits (6 + 4)
    q.push(chunk('s2c', 1)); // s2c is dropping: counted into its overflow record
    q.push({ t: 'stdio-stderr', xid: 'p', ts: 1, chunk: new Uint8Array(3) }); // does not fit
    q.flush();
    const summary = batches[0].map((r) =>
      r.t === 'stdio-chunk' ? `${r.dir}:${r.chunk.byteLength}` : r.t === 'overflow' ? `overflow:${r.stream}:${r.droppedBytes}` : r.t,
    );
    expect(summary).toEqual(['stdio-start', 'c2s:6', 'overflow:s2c:7', 'c2s:4', 'overflow:stderr:3']);
  });
});
