/**
 * Whom a stdio wrapper sends its records to, and what (issue 26, finding 5): the built CLI's
 * wrapper facing a stand-in program on the UI port — one that accepts any /ingest upgrade, one
 * that answers the wrapper's `hello` with a wrong proof, and one that knows the token and proves
 * it (a real mcpscope's answer, ingest-control.ts) and keeps every batch it gets. Nothing reaches
 * a listener that cannot prove it knows the token; without a token the wrapper does not even
 * connect; what reaches a UI that proved itself is redacted, the client still getting every byte.
 * Requires the built CLI (dist/).
 */
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import { decodeBatch, type IngestRecord } from '../../proxy/wire/capture/wire-codec.js';
import { ingestProof } from '../../proxy/app/stdio/ingest-control.js';
import { discoveryPath, writeDiscovery } from '../../proxy/app/serve/discovery.js';
import { REDACTED } from '../../proxy/recorder/redact/redact.js';
import { watchText } from '../support/text-watch.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const TOKEN = 'the-right-token-0123456789';

const SECRET = {
  server: 'sk-live-1234567890abcdef',
  bearer: 'abcdefghijklmnop1234',
  stderr: 'hunter2hunter2',
  client: 'tok-secret-abcdef123456',
  arg: 'cmdline-secret-998877',
};
const CLEAN = '{"jsonrpc":"2.0","id":2,"result":{ "spaced" : 1.0 }}\r\n';

// Answers id 1 with a result full of credentials, id 2 with CLEAN (odd spacing: it must arrive as it
// is), prints a password on stderr, and ends with its stdin.
const SERVER = `
process.stderr.write('password=${SECRET.stderr}\\n');
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (m.id === 1) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { api_key: '${SECRET.server}', note: 'Authorization: Bearer ${SECRET.bearer}' } }) + '\\n');
    if (m.id === 2) process.stdout.write(${JSON.stringify(CLEAN)});
  }
});
process.stdin.on('end', () => process.exit(0));
`;

let dir: string;
let script: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcpscope-stdio-trust-'));
  script = join(dir, 'server.mjs');
  writeFileSync(script, SERVER);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Stand {
  port: number;
  upgrades: IncomingMessage[];
  /** Every text message received on /ingest. */
  messages: string[];
}

/**
 * A program on the UI port that takes any /ingest upgrade; `proof`: what it answers a hello with
 * (`401`: it refuses the upgrade as an mcpscope from before the challenge did, wanting the token).
 */
async function standIn(proof: 'none' | 'wrong' | 'right' | '401'): Promise<Stand> {
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  const stand: Stand = { port: 0, upgrades: [], messages: [] };
  server.on('upgrade', (req, socket, head) => {
    stand.upgrades.push(req);
    if (proof === '401') return void socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', (data) => {
        const text = data.toString();
        stand.messages.push(text);
        const m = JSON.parse(text) as { type?: string; nonce?: string };
        if (m.type === 'hello' && proof !== 'none')
          ws.send(
            JSON.stringify({
              type: 'proof',
              hmac: proof === 'right' ? ingestProof(TOKEN, m.nonce!) : ingestProof('not-the-token', m.nonce!),
              nonce: 'u'.repeat(43),
            }),
          );
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  stand.port = (server.address() as AddressInfo).port;
  cleanups.push(async () => {
    for (const c of wss.clients) c.terminate();
    wss.close();
    await new Promise((r) => server.close(r));
  });
  return stand;
}

function records(stand: Stand): IngestRecord[] {
  return stand.messages
    .filter((t) => t.startsWith('['))
    .flatMap((t) => {
      const d = decodeBatch(t);
      if ('error' in d) throw new Error(d.error);
      return d.records;
    });
}

function wrapper(port: number, args: string[], prepare?: (home: string) => void) {
  const home = mkdtempSync(join(dir, 'home-'));
  prepare?.(home);
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, '--ui-port', String(port), ...args, '--', process.execPath, script, `--api-key=${SECRET.arg}`],
    { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, MCPSCOPE_HOME: home, MCPSCOPE_TOKEN: '' } },
  );
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const out = watchText(child.stdout!, 'stdout');
  const err = watchText(child.stderr!, 'stderr');
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    home,
    child,
    closed,
    stdout: out.text,
    stderr: err.text,
    stderrMatch: (re: RegExp) => err.match(re),
    stdoutMatch: (re: RegExp) => out.match(re),
  };
}

/** Drives the two requests through the wrapper and waits for both answers. */
async function exchange(w: ReturnType<typeof wrapper>): Promise<void> {
  w.child.stdin!.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { token: SECRET.client } } })}\n`,
  );
  await w.stdoutMatch(/"id":1/);
  w.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n`);
  await w.stdoutMatch(/"spaced"/);
}

describe('a stdio wrapper sends records only to a UI that proved it knows the token', () => {
  it.each([
    ['never answers the hello', 'none', /it did not prove that it knows the token \(no proof within 3000 ms\)/],
    ['answers it with a wrong proof', 'wrong', /it did not prove that it knows the token \(its proof is wrong\)/],
  ] as const)('sends nothing but its hello to a listener that %s, and records in a UI of its own', async (_what, proof, why) => {
    const stand = await standIn(proof);
    const w = wrapper(stand.port, ['--token', TOKEN]);
    const [line] = await w.stderrMatch(
      /mcpscope: port \d+ answered, but .*: nothing was sent to it; recording .* in a UI of its own: http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/,
    );
    expect(line).toMatch(why);
    expect(w.stderr()).not.toContain('in the mcpscope UI at');
    await exchange(w);
    w.child.stdin!.end();
    expect(await w.closed).toBe(0);
    expect(stand.upgrades).toHaveLength(1);
    expect(stand.messages.map((t) => (JSON.parse(t) as { type?: string }).type)).toEqual(['hello']);
    // Nor did the token go anywhere: not in the upgrade (it used to be its Authorization header), not on the socket.
    expect(stand.upgrades[0].headers.authorization).toBeUndefined();
    expect(stand.upgrades[0].headers['x-mcpscope-ingest-auth']).toBe('challenge');
    expect(JSON.stringify([stand.upgrades[0].headers, stand.upgrades[0].url, stand.messages])).not.toContain(TOKEN);
  });

  it('says plainly that a 401 on /ingest is not its token refused (it never sends it), at once', async () => {
    const stand = await standIn('401');
    // The token from a discovery file as mcpscope writes it (naming this test's process, which runs).
    const w = wrapper(stand.port, [], (home) => void writeDiscovery(stand.port, { token: TOKEN, url: '' }, { MCPSCOPE_HOME: home }));
    await w.stderrMatch(
      /mcpscope: port \d+ answered HTTP 401 on \/ingest: it wants the token sent, which this wrapper never does \(an mcpscope UI older than this wrapper\? restart it with this version\); recording .* in a UI of its own: \S+/,
    );
    // One knock: a 401 is not worth a retry (it used to be tried again for ~5 s, then called a refused token).
    expect(stand.upgrades).toHaveLength(1);
    expect(stand.upgrades[0].headers.authorization).toBeUndefined();
    w.child.stdin!.end();
    expect(await w.closed).toBe(0);
  });

  it('without a token (none given, a planted discovery file ignored) never connects, and says why', async () => {
    const stand = await standIn('right');
    // Planted for this port: others can write it, so it is not used.
    let file = '';
    const w = wrapper(stand.port, [], (home) => {
      file = discoveryPath(stand.port, { MCPSCOPE_HOME: home });
      writeFileSync(file, JSON.stringify({ token: TOKEN, pid: process.pid, url: `http://127.0.0.1:${stand.port}/` }));
      chmodSync(file, 0o666);
    });
    const [line] = await w.stderrMatch(
      /mcpscope: port \d+ is in use, but mcpscope has no token for it \(.*\), so it sends it nothing; recording .* in a UI of its own: \S+/,
    );
    expect(line).toContain(`${file} cannot be trusted: others can write it (mode 0666)`);
    await exchange(w);
    w.child.stdin!.end();
    expect(await w.closed).toBe(0);
    expect(stand.upgrades).toHaveLength(0);
  });
});

describe('a stdio wrapper redacts what it ships before it leaves the process', () => {
  const shipped = (stand: Stand) =>
    records(stand)
      .map((r) => ('chunk' in r ? Buffer.from(r.chunk).toString() : JSON.stringify(r)))
      .join('');

  it('redacts the lines, stderr and the command line; a clean line arrives byte for byte; the client gets every byte', async () => {
    const stand = await standIn('right');
    const w = wrapper(stand.port, ['--token', TOKEN]);
    await w.stderrMatch(/mcpscope: recording .* in the mcpscope UI at http:\/\/127\.0\.0\.1:\d+\//);
    await exchange(w);
    w.child.stdin!.end();
    expect(await w.closed).toBe(0);
    // The client saw the server's own bytes.
    expect(w.stdout()).toContain(SECRET.server);
    expect(w.stdout()).toContain(CLEAN);
    const all = shipped(stand);
    for (const [name, secret] of Object.entries(SECRET)) expect(all, name).not.toContain(secret);
    expect(all).toContain(CLEAN);
    expect(all).toContain(`{"jsonrpc":"2.0","id":1,"result":{"api_key":"${REDACTED}","note":"Authorization: Bearer ${REDACTED}"}}\n`);
    expect(all).toContain(`password=${REDACTED}\n`);
    const start = records(stand).find((r) => r.t === 'stdio-start');
    expect(start).toMatchObject({ args: [script, `--api-key=${REDACTED}`] });
  });

  it('ships them as they are with --show-secrets', async () => {
    const stand = await standIn('right');
    const w = wrapper(stand.port, ['--token', TOKEN, '--show-secrets']);
    await w.stderrMatch(/in the mcpscope UI at/);
    await exchange(w);
    w.child.stdin!.end();
    expect(await w.closed).toBe(0);
    const all = shipped(stand);
    for (const secret of [SECRET.server, SECRET.stderr, SECRET.client]) expect(all).toContain(secret);
  });
});
