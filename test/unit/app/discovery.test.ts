/**
 * proxy/app/serve/discovery.ts: a discovery file is used only when nobody but this user could have
 * written it, and only while the process it names runs and is this user's (issue 26, finding 10).
 * Real files in a temporary MCPSCOPE_HOME; what a non-root test cannot make (a file of another
 * user) or root cannot see (EPERM from kill) goes through injected system calls.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  discoveryPath,
  inspectDiscovery,
  processAlive,
  readDiscovery,
  systemChecks,
  writeDiscovery,
  type DiscoveryChecks,
} from '../../../proxy/app/serve/discovery.js';
import { findForwardProxy } from '../../../proxy/app/commands/running-proxy.js';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function home(): { env: NodeJS.ProcessEnv; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpscope-discovery-'));
  homes.push(dir);
  return { env: { MCPSCOPE_HOME: dir }, dir };
}

const PORT = 6123;
const posix = process.platform !== 'win32';

/** A file as an attacker would plant it: any content, any mode. */
function plant(env: NodeJS.ProcessEnv, content: object, mode = 0o600): string {
  const path = discoveryPath(PORT, env);
  writeFileSync(path, JSON.stringify(content));
  chmodSync(path, mode);
  return path;
}

/** A pid that certainly is not running: a child that has exited and been reaped. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

describe.runIf(posix)('inspectDiscovery', () => {
  it("uses the file mcpscope writes: this user's, 0600, in a 0700 home, naming this running process", () => {
    const { env } = home();
    writeDiscovery(PORT, { token: 'tok-0123456789', url: 'http://127.0.0.1:6123/' }, env);
    const found = inspectDiscovery(PORT, env);
    expect(found).toMatchObject({ ok: true, file: { token: 'tok-0123456789', pid: process.pid } });
    expect(readDiscovery(PORT, env)?.token).toBe('tok-0123456789');
  });

  it('ignores a file others can write (a planted 0666 file naming pid 1), and says why', () => {
    const { env } = home();
    const path = plant(env, { token: 'planted-token-xyz', pid: 1, url: 'http://127.0.0.1:1/', forwardProxy: 'http://127.0.0.1:9' }, 0o666);
    const found = inspectDiscovery(PORT, env);
    expect(found).toEqual({ ok: false, path, reason: `${path} cannot be trusted: others can write it (mode 0666)` });
    expect(readDiscovery(PORT, env)).toBeUndefined();
    // Group-writable is as bad.
    chmodSync(path, 0o620);
    expect(inspectDiscovery(PORT, env)).toMatchObject({ ok: false, reason: expect.stringContaining('mode 0620') });
    expect(existsSync(path)).toBe(true); // not ours to remove
  });

  it('ignores a file of another user (uid injected: a test cannot chown unless root)', () => {
    const { env } = home();
    const path = plant(env, { token: 'tok-0123456789', pid: process.pid, url: '' });
    const real = statSync(path).uid;
    const checks: DiscoveryChecks = { ...systemChecks, uid: real + 1 };
    // The home directory is checked first: it is "another user's" too under this uid.
    expect(inspectDiscovery(PORT, env, checks)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/its directory .* belongs to user/),
    });
    const fileOnly: DiscoveryChecks = {
      ...systemChecks,
      uid: real,
      readFile: (p) => {
        const r = systemChecks.readFile(p);
        return {
          ...r,
          stats: Object.assign(Object.create(Object.getPrototypeOf(r.stats) as object) as typeof r.stats, r.stats, { uid: real + 1 }),
        };
      },
    };
    expect(inspectDiscovery(PORT, env, fileOnly)).toEqual({
      ok: false,
      path,
      reason: `${path} cannot be trusted: it belongs to user ${real + 1}, not to this user (${real})`,
    });
  });

  it('does not follow a symlink', () => {
    const { env, dir } = home();
    const elsewhere = join(dir, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify({ token: 'tok-0123456789', pid: process.pid, url: '' }), { mode: 0o600 });
    const path = discoveryPath(PORT, env);
    symlinkSync(elsewhere, path);
    expect(inspectDiscovery(PORT, env)).toEqual({ ok: false, path, reason: `${path} is a symbolic link, not a file mcpscope wrote` });
  });

  it('ignores a FIFO in its place, without blocking on it (nothing writes to it)', () => {
    const { env } = home();
    const path = discoveryPath(PORT, env);
    expect(spawnSync('mkfifo', ['-m', '600', path]).status).toBe(0);
    // Before: opened blocking and read, it never returned (the test timed out).
    expect(inspectDiscovery(PORT, env)).toEqual({ ok: false, path, reason: `${path} is not a regular file` });
  });

  it('ignores a file in a home directory others can write', () => {
    const { env, dir } = home();
    writeDiscovery(PORT, { token: 'tok-0123456789', url: '' }, env);
    chmodSync(dir, 0o770);
    expect(inspectDiscovery(PORT, env)).toMatchObject({
      ok: false,
      reason: `its directory ${dir} cannot be trusted: others can write it (mode 0770)`,
    });
    chmodSync(dir, 0o700);
    expect(inspectDiscovery(PORT, env).ok).toBe(true);
  });

  it('removes a stale file (its process is gone) and says so', () => {
    const { env } = home();
    const pid = deadPid();
    const path = plant(env, { token: 'tok-0123456789', pid, url: '' });
    expect(inspectDiscovery(PORT, env)).toEqual({
      ok: false,
      path,
      reason: `${path} was stale (process ${pid} is not running) and was removed`,
    });
    expect(existsSync(path)).toBe(false);
    expect(inspectDiscovery(PORT, env)).toMatchObject({ ok: false, missing: true });
  });

  it("ignores a file naming another user's process (EPERM), and keeps it", () => {
    const { env } = home();
    const path = plant(env, { token: 'tok-0123456789', pid: 1, url: '' });
    // As root, kill(1, 0) succeeds: EPERM (what a non-root user gets for pid 1) is injected.
    const eperm: DiscoveryChecks = {
      ...systemChecks,
      kill: () => {
        throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
      },
    };
    expect(inspectDiscovery(PORT, env, eperm)).toEqual({
      ok: false,
      path,
      reason: `${path} names process 1, which belongs to another user`,
    });
    expect(existsSync(path)).toBe(true);
  });

  it('says a missing file or home is missing (callers stay quiet about that)', () => {
    const { env, dir } = home();
    expect(inspectDiscovery(PORT, env)).toMatchObject({ ok: false, missing: true });
    expect(inspectDiscovery(PORT, { MCPSCOPE_HOME: join(dir, 'none') })).toMatchObject({ ok: false, missing: true });
  });
});

describe('processAlive', () => {
  it('counts EPERM as not ours, ESRCH as gone, success as ours', () => {
    expect(processAlive(process.pid)).toBe('ours');
    expect(processAlive(deadPid())).toBe('gone');
    expect(processAlive(0)).toBe('gone');
    expect(processAlive(Number.NaN)).toBe('gone');
    expect(
      processAlive(1, () => {
        throw Object.assign(new Error('EPERM'), { code: 'EPERM' });
      }),
    ).toBe('foreign');
  });
});

describe.runIf(posix)('findForwardProxy (mcpscope run, mcpscope env)', () => {
  it('does not join the listener a planted file names, and says why', async () => {
    const { env } = home();
    // The attacker's listener: it accepts connections, as a forward proxy would.
    const listener = createServer((s) => s.destroy());
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    try {
      const forwardProxy = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
      const path = plant(env, { token: 'planted-token-xyz', pid: 1, url: 'http://127.0.0.1:1/', forwardProxy }, 0o666);
      const why: string[] = [];
      expect(await findForwardProxy(PORT, env, (r) => why.push(r))).toBeUndefined();
      expect(why).toEqual([`${path} cannot be trusted: others can write it (mode 0666)`]);
      // The same file written as mcpscope writes it is joined (the listener stands in for the proxy).
      chmodSync(path, 0o600);
      writeFileSync(path, JSON.stringify({ token: 'tok-0123456789', pid: process.pid, url: 'http://127.0.0.1:1/', forwardProxy }));
      expect(await findForwardProxy(PORT, env)).toEqual({ proxyUrl: forwardProxy, uiUrl: 'http://127.0.0.1:1/', token: 'tok-0123456789' });
    } finally {
      await new Promise((r) => listener.close(r));
    }
  });
});
