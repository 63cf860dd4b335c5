/**
 * `mcpscope open` of a capture holding JSON nested 100,000 levels deep: the file is cut on load
 * and served; the API and every export answer 200, the CLI prints no stack trace.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main, openCapture, type OpenHandle } from '../../../proxy/app/commands/open.js';
import { deepCaptureSessionLine, deepObj } from '../../support/deep-capture.js';

const capture = [
  deepCaptureSessionLine,
  `{"type":"message","seq":2,"ts":2,"sessionId":"s1","dir":"c2s","kind":"request","carrier":"post-body","size":10,"id":1,"method":"tools/call","hints":[],"jsonrpc":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"password":"hunter2","x":${deepObj}}}}`,
].join('\n');

const TOKEN = 'open-test-token-0123456789abcdef';
let opened: OpenHandle | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

describe('mcpscope open: a 100,000-level capture', () => {
  it('loads (cut to the cap) and serves: /api/events and every export answer 200', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mcpscope-open-')), 'deep.ndjson');
    writeFileSync(file, `${capture}\n`);
    const o = await openCapture(file, { uiPort: 0, token: TOKEN, host: '127.0.0.1' });
    opened = o;
    expect(o.events).toBe(2);
    const base = `http://127.0.0.1:${o.ui.port}`;
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const path of [
      '/api/events',
      '/api/sessions/s1/export?format=fixture',
      '/api/sessions/s1/export?format=har',
      '/api/sessions/s1/export?format=ndjson',
      '/api/export?format=har',
      '/api/export?format=ndjson',
    ]) {
      const res = await fetch(base + path, { headers: auth });
      const body = await res.text();
      expect(res.status, `${path}: ${body.slice(0, 200)}`).toBe(200);
      if (!/format=(fixture|har)/.test(path)) expect(body).toContain('too-deep'); // fixtures and HAR carry no hints
      if (path.includes('export')) expect(body).not.toContain('hunter2'); // exports redact; /api/events shows the file as it is
    }
  });

  it('the CLI opens it and says so: no stack trace', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mcpscope-open-')), 'deep.ndjson');
    writeFileSync(file, `${capture}\n`);
    let out = '';
    let opened!: () => void;
    const ready = new Promise<void>((resolve) => (opened = resolve));
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => {
      out += String(chunk);
      if (out.includes('  UI ')) opened();
      return true;
    }) as typeof process.stderr.write;
    const before = new Set([...process.listeners('SIGINT'), ...process.listeners('SIGTERM')]);
    try {
      const code = main([file, '--ui-port', '0', '--token', TOKEN]);
      await Promise.race([ready, code]);
      expect(out).toContain('Opened');
      // Ctrl-C, as the CLI's own handler sees it.
      for (const l of process.listeners('SIGINT')) if (!before.has(l)) (l as (s: string) => void)('SIGINT');
      expect(await code).toBe(0);
    } finally {
      process.stderr.write = write;
      for (const sig of ['SIGINT', 'SIGTERM'] as const) for (const l of process.listeners(sig)) if (!before.has(l)) process.off(sig, l);
    }
    expect(out).toContain('2 events, 1 session');
    expect(out).not.toMatch(/\n\s+at /);
  });
});
