/**
 * For the replay/verify e2e tests: the built CLI run to completion, and a session recorded through
 * mcpscope exported as a fixture.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Mcpscope } from '../../proxy/app/mcpscope.js';
import type { SessionInfo } from '../../proxy/core/model/events.js';
import type { Fixture } from '../../proxy/core/model/fixture-format.js';
import { exportFixture } from '../../proxy/files/export/export-fixture.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'mcpscope.js');

/** Runs the built CLI (bin/mcpscope.js) from the repository root to completion; killed after `timeoutMs`. */
export function runCli(args: string[], timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Waits for the closed session of `clientName` recorded through `scope` and exports it as a fixture. */
export async function fixtureOf(scope: Mcpscope, clientName: string): Promise<Fixture> {
  const session = await scope.waitFor((s) =>
    [...s.sessions.values()].find((x: SessionInfo) => x.clientInfo?.name === clientName && x.status === 'closed'),
  );
  return exportFixture(scope.store, session.id);
}

/** Starts `mcpscope replay <args> --port 0 --quiet` and resolves with its URL and a stop function (resolving with its exit code). */
export async function startReplayCli(args: string[]): Promise<{ url: string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, 'replay', ...args, '--port', '0', '--quiet'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`replay exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    async stop() {
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGINT');
      return exited;
    },
  };
}

/**
 * `mcpscope open` of a capture file named `name` holding `content` (written to a fresh temporary
 * directory), on an OS-picked UI port: the UI URL it prints, and a stop that waits for its exit and
 * removes the directory.
 */
export async function startOpenCli(name: string, content: string, token: string): Promise<{ uiUrl: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpscope-open-'));
  const file = join(dir, name);
  writeFileSync(file, content);
  const child = spawn(process.execPath, [BIN, 'open', file, '--ui-port', '0', '--token', token], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const uiUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mcpscope open printed no URL:\n${stderr}`)), 20_000);
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /UI\s+(http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`mcpscope open exited (${code}):\n${stderr}`)));
  });
  return {
    uiUrl,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
