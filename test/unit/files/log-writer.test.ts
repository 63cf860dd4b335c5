/**
 * The live annotated log (proxy/files/export/log-writer.ts): a store subscriber writing to a stream or a
 * file. It writes what the text export prints; it drops (and counts, and says so) instead of
 * queueing without bound when the destination does not drain; a log file is 0600; the JSON form
 * parses line by line; nothing secret is ever written, whatever --show-secrets said.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { exportTextLog } from '../../../proxy/files/export/export-text.js';
import { startLogWriter, wantsColour } from '../../../proxy/files/export/log-writer.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';
import { recordScriptedCapture, SCRIPTED_SECRETS, SCRIPTED_TOKEN } from '../../support/scripted-session.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'mcpscope-log-'));
  dirs.push(d);
  return d;
};

/** A destination that takes bytes and never finishes writing them (a `| less` that stopped reading), until `release()`. */
class StalledSink extends Writable {
  written = '';
  private held: (() => void)[] = [];
  stalled = true;
  constructor() {
    super({ highWaterMark: 1024 });
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.written += chunk.toString('utf8');
    if (this.stalled) this.held.push(done);
    else done();
  }
  release(): void {
    this.stalled = false;
    for (const done of this.held.splice(0)) done();
  }
}

function collect(stream: PassThrough): () => string {
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
  return () => text;
}

describe('startLogWriter', () => {
  it('writes, live, exactly what the text export prints (a stream that is not a terminal: no colour)', async () => {
    const out = new PassThrough();
    const text = collect(out);
    let writer: ReturnType<typeof startLogWriter> | undefined;
    const c = recordScriptedCapture({
      // Subscribed before anything is recorded, as `startMcpscope` does.
      onStore: (store) => (writer = startLogWriter(store, { to: { stream: out }, token: SCRIPTED_TOKEN, utc: true, width: 100 })),
    });
    await writer!.close();
    expect(text()).toBe(exportTextLog(c.store, undefined, { token: SCRIPTED_TOKEN, utc: true }));
    expect(text()).toContain('>>> REQUEST POST http://127.0.0.1:3001/mcp');
    expect(text()).not.toContain('\x1b[');
  });

  it('starting late, it first writes what the store already holds', async () => {
    const c = recordScriptedCapture();
    const out = new PassThrough();
    const text = collect(out);
    const writer = startLogWriter(c.store, { to: { stream: out }, token: SCRIPTED_TOKEN, utc: true });
    await writer.close();
    expect(text()).toBe(exportTextLog(c.store, undefined, { token: SCRIPTED_TOKEN, utc: true }));
  });

  it('colours a terminal unless NO_COLOR, and FORCE_COLOR forces it', async () => {
    expect(wantsColour(true, {})).toBe(true);
    expect(wantsColour(false, {})).toBe(false);
    expect(wantsColour(true, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColour(false, { FORCE_COLOR: '1' })).toBe(true);
    expect(wantsColour(true, { FORCE_COLOR: '0' })).toBe(false);
    const c = recordScriptedCapture();
    const out = new PassThrough();
    const text = collect(out);
    await startLogWriter(c.store, { to: { stream: out, isTTY: true }, env: {}, token: SCRIPTED_TOKEN, utc: true }).close();
    expect(text()).toContain('\x1b[1;34m>>> REQUEST');
  });

  it('drops lines past the bound when the destination does not drain, counts them, and says so once it catches up', async () => {
    const store = new EventStore();
    const sink = new StalledSink();
    const writer = startLogWriter(store, { to: { stream: sink }, maxPendingBytes: 4096, utc: true });
    const line = (i: number) =>
      store.append({ type: 'log', ts: Date.UTC(2026, 0, 1) + i, source: 'stderr', text: `line ${i} ${'x'.repeat(100)}` });
    for (let i = 0; i < 200; i++) {
      line(i);
      store.commit();
    }
    // Memory stays bounded: what waits in the stream is about the bound, not 200 lines.
    expect(sink.writableLength).toBeLessThan(4096 + 1024);
    expect(writer.dropped).toBeGreaterThan(100);
    const dropped = writer.dropped;
    sink.release();
    await new Promise<void>((resolve) => sink.write('', () => resolve()));
    line(200);
    store.commit();
    await writer.close();
    expect(sink.written).toContain(`mcpscope: ${dropped} log lines dropped (the stream did not keep up)`);
    expect(sink.written).toContain('line 0 ');
    expect(sink.written).toContain('line 200 ');
    expect(sink.written).not.toContain('line 150 ');
    expect(writer.dropped).toBe(0);
  });

  it('a file is created 0600, appended to, and an existing file others can read is narrowed to 0600', async () => {
    const dir = tempDir();
    const path = join(dir, 'mcpscope.log');
    const c = recordScriptedCapture();
    await startLogWriter(c.store, { to: { file: path }, token: SCRIPTED_TOKEN, utc: true }).close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const once = readFileSync(path, 'utf8');
    expect(once).toBe(exportTextLog(c.store, undefined, { token: SCRIPTED_TOKEN, utc: true }));

    const open = join(dir, 'open.log');
    writeFileSync(open, 'before\n', { mode: 0o644 });
    const warnings: string[] = [];
    await startLogWriter(c.store, { to: { file: open }, token: SCRIPTED_TOKEN, utc: true, warn: (t) => warnings.push(t) }).close();
    expect(statSync(open).mode & 0o777).toBe(0o600);
    expect(readFileSync(open, 'utf8')).toBe(`before\n${once}`);
    expect(warnings.join('\n')).toMatch(/readable by others \(mode 644\); it is 0600 now/);
  });

  it('a file that cannot be opened throws in plain words', () => {
    expect(() => startLogWriter(new EventStore(), { to: { file: join(tempDir(), 'no', 'such', 'dir.log') } })).toThrow(
      /cannot open the log file .* for writing/,
    );
  });

  it('the JSON form is one object per line, with the redacted message', async () => {
    const out = new PassThrough();
    const text = collect(out);
    let writer: ReturnType<typeof startLogWriter> | undefined;
    recordScriptedCapture({
      onStore: (store) => (writer = startLogWriter(store, { to: { stream: out }, format: 'json', token: SCRIPTED_TOKEN })),
    });
    await writer!.close();
    const lines = text().split('\n');
    expect(lines.pop()).toBe('');
    const objects = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objects.length).toBeGreaterThan(20);
    for (const o of objects) {
      expect(typeof o.ts).toBe('string');
      expect(typeof o.seq).toBe('number');
      expect(typeof o.kind).toBe('string');
      expect(typeof o.text).toBe('string');
      expect(o.text as string).not.toContain('\x1b[');
    }
    const call = objects.find((o) => o.kind === 'message' && o.method === 'tools/call' && o.dir === 'c2s');
    expect(call).toMatchObject({ session: 's1', id: 3, name: 'echo' });
    expect(call!.message).toMatchObject({ method: 'tools/call', params: { name: 'echo' } });
  });

  it('never writes a secret, even from a capture recorded with --show-secrets', async () => {
    for (const format of ['text', 'json'] as const) {
      const out = new PassThrough();
      const text = collect(out);
      let writer: ReturnType<typeof startLogWriter> | undefined;
      const c = recordScriptedCapture({
        showSecrets: true,
        onStore: (store) => (writer = startLogWriter(store, { to: { stream: out }, format, token: SCRIPTED_TOKEN })),
      });
      await writer!.close();
      // The store holds the bearer token (recorded as --show-secrets does); the log does not.
      expect(JSON.stringify(c.store.snapshot())).toContain('sk-live-secret-value');
      expect(text()).toMatch(/authorization: Bearer \[redacted\]/);
      for (const secret of SCRIPTED_SECRETS) expect(text()).not.toContain(secret);
    }
  });
});
