/** proxy/files/export/ndjson-recorder.ts: the --record file's permissions, its fsyncs and its last batch at stop. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';
import { recordToFile } from '../../../proxy/files/export/ndjson-recorder.js';

/** The fds fsynced, in order (the recorder's fsyncSync, spied on; it still syncs). */
const fsynced = vi.hoisted(() => [] as number[]);
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    fsyncSync: (fd: number) => {
      fsynced.push(fd);
      fs.fsyncSync(fd);
    },
  };
});

const dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  fsynced.length = 0;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'mcpscope-rec-'));
  dirs.push(d);
  return d;
};

describe('recordToFile', () => {
  it('creates the file 0600, whatever the umask lets through', () => {
    const path = join(tempDir(), 'rec.ndjson');
    const old = process.umask(0o002);
    try {
      const stop = recordToFile(new EventStore(), path);
      stop();
    } finally {
      process.umask(old);
    }
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('narrows an existing file others could read to 0600, says so, and appends', () => {
    const path = join(tempDir(), 'rec.ndjson');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    const warnings: string[] = [];
    const store = new EventStore();
    const stop = recordToFile(store, path, { warn: (t) => warnings.push(t) });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('0600');
    store.append({ type: 'log', ts: 1, source: 'mcpscope', text: 'last words' });
    store.commit();
    stop();
    expect(readFileSync(path, 'utf8')).toContain('last words');
  });

  it('fsyncs every 250 ms while something was written since the last sync, and at stop (README.md, --record)', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const store = new EventStore();
    const log = (text: string) => {
      store.append({ type: 'log', ts: 1, source: 'mcpscope', text });
      store.commit();
    };
    const stop = recordToFile(store, join(tempDir(), 'rec.ndjson'));
    vi.advanceTimersByTime(1000);
    expect(fsynced).toHaveLength(0); // nothing written: no sync
    log('one');
    log('two');
    vi.advanceTimersByTime(249);
    expect(fsynced).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(fsynced).toHaveLength(1); // one sync for both batches
    vi.advanceTimersByTime(1000);
    expect(fsynced).toHaveLength(1);
    log('last');
    stop();
    expect(fsynced).toHaveLength(2); // at stop, before the close
  });
});
