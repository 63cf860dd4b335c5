/**
 * Port scan (issue 6, acceptance): the built CLI, started in front of an upstream with default
 * options, listens on loopback only — every listening TCP socket the process owns is bound to
 * 127.0.0.1. `--host 0.0.0.0` prints a warning, and the UI port still answers 401 without the token.
 * Reads /proc/<pid>/fd and /proc/net/tcp{,6} (Linux). Requires `npm run build`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const HAS_PROC = existsSync('/proc/net/tcp');

const children: ChildProcess[] = [];
let upstream: ScriptedUpstream | undefined;
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await new Promise((r) => c.once('exit', r));
    }
  }
  await upstream?.close();
  upstream = undefined;
});

interface Listening {
  address: string;
  port: number;
}

/** Decodes a /proc/net/tcp(6) local address (hex, host byte order per 32-bit word). */
function decodeAddress(hex: string): Listening {
  const [ip, port] = hex.split(':');
  const words = ip.match(/.{8}/g)!.map((w) => w.match(/../g)!.reverse().join(''));
  let address: string;
  if (words.length === 1) {
    address = words[0]
      .match(/../g)!
      .map((b) => parseInt(b, 16))
      .join('.');
  } else {
    const full = words.join('');
    // IPv4-mapped (::ffff:a.b.c.d) is reported as IPv4.
    if (full.startsWith('00000000000000000000ffff'))
      address = full
        .slice(24)
        .match(/../g)!
        .map((b) => parseInt(b, 16))
        .join('.');
    else
      address = full
        .match(/.{4}/g)!
        .map((g) => g.replace(/^0+(?=.)/, ''))
        .join(':');
  }
  return { address, port: parseInt(port, 16) };
}

/** Every TCP socket in LISTEN state that `pid` holds open. */
function listeningSockets(pid: number): Listening[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      /* closed meanwhile */
    }
  }
  const out: Listening[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      // st 0A = LISTEN; column 9 is the inode.
      if (cols[3] === '0A' && inodes.has(cols[9])) out.push(decodeAddress(cols[1]));
    }
  }
  return out;
}

function launch(args: string[]): Promise<{ child: ChildProcess; proxyUrl: string; uiUrl: string; stderr: () => string }> {
  const home = mkdtempSync(join(tmpdir(), 'mcpscope-listen-'));
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MCPSCOPE_TOKEN: '', MCPSCOPE_HOME: home },
  });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  child.stdout!.resume();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mcpscope did not print its URLs:\n${err}`)), 20_000);
    child.once('exit', (code) => reject(new Error(`mcpscope exited (${code}):\n${err}`)));
    const check = () => {
      const proxy = /proxy\s+(http:\/\/\S+)/.exec(err);
      const ui = /UI\s+(http:\/\/\S+)/.exec(err);
      if (proxy && ui) {
        clearTimeout(timer);
        child.stderr!.off('data', check);
        resolve({ child, proxyUrl: proxy[1], uiUrl: ui[1], stderr: () => err });
      }
    };
    child.stderr!.on('data', check);
  });
}

const upstreamRoutes = {
  'POST /mcp': (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
  },
};

describe.skipIf(!HAS_PROC)('listeners (port scan)', () => {
  it('listens on 127.0.0.1 only by default: the proxy port and the UI port, nothing else', async () => {
    upstream = await startScriptedUpstream(upstreamRoutes);
    const { child, proxyUrl, uiUrl, stderr } = await launch(['--target', `${upstream.origin}/mcp`, '--port', '0', '--ui-port', '0']);
    const sockets = listeningSockets(child.pid!);
    const proxyPort = Number(new URL(proxyUrl).port);
    const uiPort = Number(new URL(uiUrl).port);
    // Both ports are found (the scan sees this process's listeners)…
    expect(sockets.map((s) => s.port).sort()).toEqual([proxyPort, uiPort].sort());
    // …and every one is bound to loopback.
    for (const s of sockets) expect(s.address, `port ${s.port}`).toBe('127.0.0.1');
    expect(stderr()).not.toMatch(/warning/i);
  });

  it('--host 0.0.0.0 warns on stderr, listens on every interface, and the UI still needs the token', async () => {
    upstream = await startScriptedUpstream(upstreamRoutes);
    const { child, uiUrl, stderr } = await launch([
      '--target',
      `${upstream.origin}/mcp`,
      '--port',
      '0',
      '--ui-port',
      '0',
      '--host',
      '0.0.0.0',
    ]);
    expect(stderr()).toMatch(/warning: listening on 0\.0\.0\.0 exposes/);
    const sockets = listeningSockets(child.pid!);
    expect(sockets.length).toBe(2);
    for (const s of sockets) expect(s.address).toBe('0.0.0.0');

    const u = new URL(uiUrl);
    const token = u.searchParams.get('token')!;
    expect(token.length).toBeGreaterThan(10);
    const api = `${u.origin}/api/sessions`;
    expect((await fetch(api)).status).toBe(401);
    expect((await fetch(api, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(`${u.origin}/`)).status).toBe(401);
    expect((await fetch(api, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});

describe.skipIf(!HAS_PROC)('--hash-session-ids through the CLI', () => {
  it('is accepted and listed in --help', async () => {
    upstream = await startScriptedUpstream(upstreamRoutes);
    const { uiUrl } = await launch(['--target', `${upstream.origin}/mcp`, '--port', '0', '--ui-port', '0', '--hash-session-ids']);
    expect(new URL(uiUrl).searchParams.get('token')).toBeTruthy();
    const help = spawn(process.execPath, [BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(help);
    let out = '';
    help.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    help.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    await new Promise((r) => help.once('exit', r));
    expect(out).toMatch(/--hash-session-ids\s+show MCP session ids as sha256/);
  });
});
