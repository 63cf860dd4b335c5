/**
 * The stdio wrapper never leaves its server behind (issue 26, finding 13): the built CLI's
 * wrapper around a server that is slow to exit — it ignores SIGINT, SIGTERM and the end of its
 * stdin, and has a child of its own that does too — driven the way Claude Code stops a server
 * (SIGINT, SIGTERM 100 ms later, SIGKILL to the wrapper 0.5 s after that), and by a client that
 * just goes away (its end of the wrapper's stdin closes). Afterwards the server and its child are
 * gone (kill(pid, 0) → ESRCH, polled with a deadline). The same for a launcher that exits at once
 * and leaves a child behind holding its stdout: the group outlives its leader, and the wrapper
 * ends it too. Requires the built CLI (dist/).
 */
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { discoveryPath, inspectDiscovery } from '../../proxy/app/serve/discovery.js';
import { freePort } from '../support/free-port.js';
import { watchText } from '../support/text-watch.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));

// Ignores SIGINT, SIGTERM and its stdin's end (saying so on stderr), starts a child that ignores
// them too, and reports both pids: `pids <server> <child>`. Only SIGKILL ends either.
const STUBBORN = `
import { spawn } from 'node:child_process';
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => process.stderr.write('ignoring ' + s + '\\n'));
const child = spawn(process.execPath, ['-e', "for (const s of ['SIGINT','SIGTERM','SIGHUP']) process.on(s, () => {}); setInterval(() => {}, 1000); process.stderr.write('child up\\\\n')"], { stdio: ['ignore', 'ignore', 'inherit'] });
process.stdin.resume();
process.stdin.on('end', () => process.stderr.write('stdin ended, staying\\n'));
setInterval(() => {}, 1000);
process.stderr.write('pids ' + process.pid + ' ' + child.pid + '\\n');
`;

// A launcher (as npx, a shell script) that exits on SIGINT or at its stdin's end, leaving a child
// that ignores every signal but SIGKILL and holds the launcher's stdout and stderr.
const LAUNCHER = `
import { spawn } from 'node:child_process';
const child = spawn(process.execPath, ['-e', "for (const s of ['SIGINT','SIGTERM','SIGHUP']) process.on(s, () => {}); setInterval(() => {}, 1000); process.stderr.write('child up\\\\n')"], { stdio: ['ignore', 'inherit', 'inherit'] });
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stderr.write('pids ' + process.pid + ' ' + child.pid + '\\n');
`;

let dir: string;
let script: string;
let launcher: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcpscope-stdio-signals-'));
  script = join(dir, 'stubborn.mjs');
  writeFileSync(script, STUBBORN);
  launcher = join(dir, 'launcher.mjs');
  writeFileSync(launcher, LAUNCHER);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const leftovers: number[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone, as it should be */
    }
  }
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Polls until `pids` are all gone (ESRCH), or fails after `ms`. */
async function gone(pids: number[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (pids.some(alive)) {
    if (Date.now() > deadline) throw new Error(`still running after ${ms} ms: ${pids.filter(alive).join(', ')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function wrapper(home: string, port: number, server = script) {
  const child = spawn(process.execPath, [BIN, '--ui-port', String(port), '--', process.execPath, server], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, MCPSCOPE_HOME: home, MCPSCOPE_TOKEN: '' },
  });
  children.push(child);
  child.stdout!.resume();
  const err = watchText(child.stderr!, 'stderr');
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, closed, match: err.match, stderr: err.text };
}

describe('the stdio wrapper ends its server', () => {
  it('stopped as Claude Code stops it (SIGINT, SIGTERM +100 ms, SIGKILL to the wrapper +500 ms): server and its child are gone', async () => {
    const home = mkdtempSync(join(dir, 'home-'));
    const port = await freePort();
    const w = wrapper(home, port);
    const [, server, grandchild] = (await w.match(/pids (\d+) (\d+)/)).map(Number);
    leftovers.push(server, grandchild);
    await w.match(/child up/);
    await w.match(/serves it while/);
    expect(existsSync(discoveryPath(port, { MCPSCOPE_HOME: home }))).toBe(true);

    w.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 100)); // the client's own timing, not a synchronisation
    w.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    w.child.kill('SIGKILL');
    await w.closed;
    await gone([server, grandchild], 5_000);
    expect(w.stderr()).toContain('ignoring SIGINT');
    // Whether the wrapper got to remove its discovery file or was killed first, no reader uses it.
    expect(inspectDiscovery(port, { MCPSCOPE_HOME: home }).ok).toBe(false);
    expect(existsSync(discoveryPath(port, { MCPSCOPE_HOME: home }))).toBe(false);
  });

  it('when its stdin closes (the client went away): ends the server’s stdin, then SIGTERM, then SIGKILL, and exits', async () => {
    const home = mkdtempSync(join(dir, 'home-'));
    const w = wrapper(home, await freePort());
    const [, server, grandchild] = (await w.match(/pids (\d+) (\d+)/)).map(Number);
    leftovers.push(server, grandchild);
    await w.match(/child up/);
    w.child.stdin!.end();
    const { code } = await w.closed;
    expect(code).toBe(128 + 9);
    await gone([server, grandchild], 5_000);
    const err = w.stderr();
    expect(err.indexOf('stdin ended, staying')).toBeGreaterThan(-1);
    expect(err.indexOf('ignoring SIGTERM')).toBeGreaterThan(err.indexOf('stdin ended, staying'));
  });

  it('SIGKILLed while it serves the UI: its discovery file is stale, and the next reader removes it', async () => {
    const home = mkdtempSync(join(dir, 'home-'));
    const port = await freePort();
    const w = wrapper(home, port);
    const [, server, grandchild] = (await w.match(/pids (\d+) (\d+)/)).map(Number);
    leftovers.push(server, grandchild);
    await w.match(/serves it while/);
    const file = discoveryPath(port, { MCPSCOPE_HOME: home });
    expect(inspectDiscovery(port, { MCPSCOPE_HOME: home }).ok).toBe(true);
    w.child.kill('SIGKILL');
    await w.closed;
    expect(existsSync(file)).toBe(true);
    expect(inspectDiscovery(port, { MCPSCOPE_HOME: home })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/was stale .* and was removed$/),
    });
    expect(existsSync(file)).toBe(false);
  });

  it('stopped as Claude Code stops it, a launcher that exits at once: the child it left holding its stdout is gone too', async () => {
    const home = mkdtempSync(join(dir, 'home-'));
    const w = wrapper(home, await freePort(), launcher);
    const [, server, grandchild] = (await w.match(/pids (\d+) (\d+)/)).map(Number);
    leftovers.push(server, grandchild);
    await w.match(/child up/);
    await w.match(/serves it while/);

    w.child.kill('SIGINT');
    await gone([server], 5_000); // the launcher ends on SIGINT; its group does not
    w.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500)); // the client's own timing, not a synchronisation
    w.child.kill('SIGKILL');
    await w.closed;
    await gone([grandchild], 5_000);
  });

  it('when its stdin closes, a launcher that exits and leaves a child holding its stdout: the child is ended too, and the wrapper exits', async () => {
    const home = mkdtempSync(join(dir, 'home-'));
    const w = wrapper(home, await freePort(), launcher);
    const [, server, grandchild] = (await w.match(/pids (\d+) (\d+)/)).map(Number);
    leftovers.push(server, grandchild);
    await w.match(/child up/);
    w.child.stdin!.end();
    await gone([server], 5_000);
    // Before, the wrapper waited for ever for a stdout that the child held open.
    const exited = await Promise.race([w.closed, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 15_000))]);
    expect(exited).toEqual({ code: 0, signal: null });
    await gone([grandchild], 5_000);
  });
});
