/**
 * NODE_TLS_REJECT_UNAUTHORIZED=0 in mcpscope's environment does not turn its upstream certificate
 * checks off (issue 26, finding 4: self-signed, wrong-host and expired servers were relayed with a
 * 200, the client seeing a valid mcpscope certificate). The built CLI (bin/mcpscope.js; needs
 * `npx tsc -p tsconfig.build.json`) is started with that variable, in forward and in reverse mode,
 * in front of three HTTPS servers it must not trust: each request gets mcpscope's 502 naming the
 * certificate problem, is recorded as that, reaches no server, and mcpscope says once on stderr
 * that it ignores the variable. Synchronised on what the processes say and write, never on sleeps.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { x509, type CaMaterial } from '../../proxy/wire/forward-proxy/ca.js';
import { startMcpscope } from '../../proxy/app/mcpscope.js';
import type { McpscopeEvent } from '../../proxy/core/model/events.js';
import type { TelemetryStats } from '../../proxy/core/model/api-stats.js';
import { makeTestCa, viaProxy, type TestCa } from '../support/tls-peers.js';

const BIN = fileURLToPath(new URL('../../bin/mcpscope.js', import.meta.url));
const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY = 24 * 60 * 60 * 1000;
const NOTICE = /NODE_TLS_REJECT_UNAUTHORIZED=0 is set, and mcpscope ignores it for its upstream connections/g;

async function keyPem(key: CryptoKey): Promise<string> {
  return `${x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY')}\n`;
}

/** A certificate for localhost signed by nobody but itself. */
async function selfSigned(): Promise<CaMaterial> {
  const keys = (await crypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=localhost',
    keys,
    serialNumber: '01',
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 30 * DAY),
    signingAlgorithm: SIGNING,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'localhost' }])],
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey) };
}

/** A certificate for localhost from the test CA that expired yesterday. */
async function expired(ca: CaMaterial): Promise<CaMaterial> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await crypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(ca.keyPem), EC_KEY, false, ['sign']);
  const keys = (await crypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    subject: 'CN=localhost',
    issuer: caCert.subjectName,
    publicKey: keys.publicKey,
    signingKey: caKey,
    serialNumber: '02',
    notBefore: new Date(Date.now() - 30 * DAY),
    notAfter: new Date(Date.now() - DAY),
    signingAlgorithm: SIGNING,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'localhost' }])],
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey) };
}

interface Upstream {
  name: string;
  /** The URL the client uses (wrong-host: an address the certificate does not name). */
  url: string;
  /** The x-mcpscope-error code mcpscope answers with. */
  code: string;
  /** How the recorded problem says it. */
  words: RegExp;
  server: Server;
  hits: number;
}

let testCa: TestCa;
let dir: string;
let caFile: string;
/** The self-signed server's own certificate (what a user trusting it would give mcpscope). */
let selfSignedFile: string;
let selfSignedTls: CaMaterial;
const upstreams: Upstream[] = [];

async function startUpstream(name: string, tls: CaMaterial, host: string, code: string, words: RegExp): Promise<void> {
  const up: Upstream = { name, url: '', code, words, server: undefined as unknown as Server, hits: 0 };
  up.server = createHttpsServer({ key: tls.keyPem, cert: tls.certPem }, (_req, res) => {
    up.hits += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":7,"result":{}}');
  });
  up.server.listen(0, '127.0.0.1');
  await once(up.server, 'listening');
  up.url = `https://${host}:${(up.server.address() as AddressInfo).port}/mcp`;
  upstreams.push(up);
}

beforeAll(async () => {
  testCa = await makeTestCa();
  dir = mkdtempSync(join(tmpdir(), 'mcpscope-tls-env-'));
  caFile = join(dir, 'test-ca.pem');
  writeFileSync(caFile, testCa.ca.certPem);
  const own = await selfSigned();
  selfSignedTls = own;
  selfSignedFile = join(dir, 'self-signed.pem');
  writeFileSync(selfSignedFile, own.certPem);
  await startUpstream('self-signed', own, 'localhost', 'DEPTH_ZERO_SELF_SIGNED_CERT', /not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT/);
  // The test CA's leaf is for localhost: reached as 127.0.0.1 it names the wrong host.
  await startUpstream('wrong-host', testCa.leaf, '127.0.0.1', 'ERR_TLS_CERT_ALTNAME_INVALID', /not valid for this host name/);
  await startUpstream('expired', await expired(testCa.ca), 'localhost', 'CERT_HAS_EXPIRED', /certificate has expired/);
});

afterAll(async () => {
  for (const u of upstreams) {
    u.server.closeAllConnections();
    u.server.close();
  }
  testCa?.remove();
  rmSync(dir, { recursive: true, force: true });
});

interface Cli {
  child: ChildProcess;
  stderr(): string;
  says(re: RegExp): Promise<RegExpExecArray>;
  record: string;
}

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await once(c, 'exit');
    }
  }
});

/** The built CLI with NODE_TLS_REJECT_UNAUTHORIZED=0 (and the test CA trusted through NODE_EXTRA_CA_CERTS). */
function startCli(args: string[], name: string): Cli {
  const home = join(dir, `home-${name}`);
  const record = join(dir, `${name}.ndjson`);
  const child = spawn(process.execPath, [BIN, ...args, '--ui-port', '0', '--record', record], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0', NODE_EXTRA_CA_CERTS: caFile, MCPSCOPE_HOME: home, MCPSCOPE_TOKEN: '' },
  });
  children.push(child);
  let err = '';
  const waiters: { re: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
    for (const w of [...waiters]) {
      const m = new RegExp(w.re.source, w.re.flags.replace('g', '')).exec(err);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  const exited = once(child, 'exit');
  const says = (re: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const m = new RegExp(re.source, re.flags.replace('g', '')).exec(err);
      if (m) return resolve(m);
      waiters.push({ re, resolve });
      void exited.then(() => reject(new Error(`mcpscope exited before saying ${re}:\n${err}`)));
    });
  return { child, stderr: () => err, says, record };
}

/** The exchanges in the --record file with a 502 for `url`, once there are `n` (the file is synced every 250 ms). */
async function recorded502s(record: string, urls: string[]): Promise<McpscopeEvent[]> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    let events: McpscopeEvent[] = [];
    try {
      events = readFileSync(record, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as McpscopeEvent);
    } catch {
      /* not written yet */
    }
    const errors = events.filter((e) => e.type === 'problem' && e.code === 'upstream-unreachable');
    if (errors.length >= urls.length || performance.now() > deadline) return errors;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One recorded problem per upstream, naming its URL and its certificate's fault. */
function expectNamed(problems: McpscopeEvent[]): void {
  expect(problems).toHaveLength(3);
  const texts = problems.map((p) => (p.type === 'problem' ? p.text : ''));
  for (const u of upstreams)
    expect(
      texts.find((t) => t.includes(u.url)),
      u.name,
    ).toMatch(u.words);
}

const ping = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":7,"method":"ping"}' };

describe('NODE_TLS_REJECT_UNAUTHORIZED=0 in mcpscope’s environment', () => {
  it('forward mode: a self-signed, a wrong-host and an expired server still get the recorded 502', async () => {
    const cli = startCli(['--forward', '--port', '0', '--upstream-ca', caFile], 'forward');
    const proxy = (await cli.says(/proxy\s+(http:\/\/127\.0\.0\.1:\d+)/))[1];
    await cli.says(/UI\s+http/);
    const mcpscopeCa = readFileSync(join(dir, 'home-forward', 'ca', 'ca.pem'), 'utf8');
    const via = viaProxy(proxy, { ca: mcpscopeCa });
    try {
      for (const u of upstreams) {
        const res = await via.fetch(u.url, ping);
        expect(res.status, u.name).toBe(502);
        expect(res.headers.get('x-mcpscope-error'), u.name).toBe(u.code);
        const body = (await res.json()) as { id: unknown; error: { message: string } };
        expect(body.id).toBe(7);
        expect(body.error.message).toMatch(/never skips that check|not valid|expired/);
      }
    } finally {
      await via.close();
    }
    for (const u of upstreams) expect(u.hits, u.name).toBe(0);
    const problems = await recorded502s(
      cli.record,
      upstreams.map((u) => u.url),
    );
    expectNamed(problems);
    expect(cli.stderr().match(NOTICE)).toHaveLength(1);
    expect(cli.stderr()).toContain('--upstream-ca');
  });

  it('reverse mode (--target https://…): the same 502s, and the notice once for all three proxy ports', async () => {
    const cli = startCli([...upstreams.flatMap((u) => ['--target', `${u.name}=${u.url}`]), '--port', '0'], 'reverse');
    const ports = new Map<string, string>();
    for (const u of upstreams) {
      const m = await cli.says(new RegExp(`proxy\\s+(http://127\\.0\\.0\\.1:\\d+/mcp)\\s+→\\s+${u.url.replace(/[.]/g, '\\.')}`));
      ports.set(u.name, m[1]);
    }
    await cli.says(/UI\s+http/);
    for (const u of upstreams) {
      const res = await fetch(ports.get(u.name)!, ping);
      expect(res.status, u.name).toBe(502);
      expect(res.headers.get('x-mcpscope-error'), u.name).toBe(u.code);
    }
    for (const u of upstreams) expect(u.hits, u.name).toBe(0);
    expectNamed(
      await recorded502s(
        cli.record,
        upstreams.map((u) => u.url),
      ),
    );
    expect(cli.stderr().match(NOTICE)).toHaveLength(1);
  });

  it('reverse mode with --upstream-ca: the server of that private CA is trusted (the 502’s advice works), the others still get their 502', async () => {
    // A server of its own, with the self-signed certificate the user trusts (the shared ones count their hits for later tests).
    let hits = 0;
    const trusted = createHttpsServer({ key: selfSignedTls.keyPem, cert: selfSignedTls.certPem }, (_req, res) => {
      hits += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":7,"result":{}}');
    });
    trusted.listen(0, '127.0.0.1');
    await once(trusted, 'listening');
    const url = `https://localhost:${(trusted.address() as AddressInfo).port}/mcp`;
    const others = upstreams.filter((u) => u.name !== 'self-signed');
    try {
      const targets = [{ name: 'trusted', url }, ...others];
      const cli = startCli(
        [...targets.flatMap((u) => ['--target', `${u.name}=${u.url}`]), '--port', '0', '--upstream-ca', selfSignedFile],
        'reverse-ca',
      );
      const ports = new Map<string, string>();
      for (const u of targets) {
        const m = await cli.says(new RegExp(`proxy\\s+(http://127\\.0\\.0\\.1:\\d+/mcp)\\s+→\\s+${u.url.replace(/[.]/g, '\\.')}`));
        ports.set(u.name, m[1]);
      }
      await cli.says(/UI\s+http/);
      const res = await fetch(ports.get('trusted')!, ping);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
      expect(hits).toBe(1);
      const hitsBefore = others.map((u) => u.hits);
      for (const u of others) {
        const r = await fetch(ports.get(u.name)!, ping);
        expect(r.status, u.name).toBe(502);
        expect(r.headers.get('x-mcpscope-error'), u.name).toBe(u.code);
      }
      expect(others.map((u) => u.hits)).toEqual(hitsBefore);
    } finally {
      trusted.closeAllConnections();
      trusted.close();
    }
  });

  it('refuses --upstream-ca without an HTTPS upstream, saying where it applies', async () => {
    const cli = startCli(['--target', 'http://127.0.0.1:9/mcp', '--port', '0', '--upstream-ca', selfSignedFile], 'reverse-ca-http');
    const [code] = (await once(cli.child, 'exit')) as [number];
    expect(code).toBe(2);
    expect(cli.stderr()).toContain('--upstream-ca is for upstream servers reached over HTTPS');
  });

  it('mcpscope verify checks the live server’s certificate too: each of the three is a connection error, no request reaches it', async () => {
    const fixture = fileURLToPath(new URL('../fixtures/demo-client-round.fixture.json', import.meta.url));
    for (const u of upstreams) {
      const child = spawn(process.execPath, [BIN, 'verify', fixture, '--target', u.url, '--timeout', '5000'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0', NODE_EXTRA_CA_CERTS: caFile, MCPSCOPE_HOME: join(dir, 'home-verify') },
      });
      children.push(child);
      let err = '';
      child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code, `${u.name}: ${err}`).toBe(2);
      expect(err, u.name).toMatch(new RegExp(`cannot connect to ${u.url.replace(/[.]/g, '\\.')}: fetch failed \\(${u.code}`));
      expect(err.match(NOTICE), u.name).toHaveLength(1);
      expect(u.hits, u.name).toBe(0);
    }
  });

  it('mcpscope verify --upstream-ca trusts that private CA for the live server (it reaches the server)', async () => {
    const fixture = fileURLToPath(new URL('../fixtures/demo-client-round.fixture.json', import.meta.url));
    let hits = 0;
    const trusted = createHttpsServer({ key: selfSignedTls.keyPem, cert: selfSignedTls.certPem }, (_req, res) => {
      hits += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":0,"result":{}}');
    });
    trusted.listen(0, '127.0.0.1');
    await once(trusted, 'listening');
    const url = `https://localhost:${(trusted.address() as AddressInfo).port}/mcp`;
    try {
      const child = spawn(
        process.execPath,
        [BIN, 'verify', fixture, '--target', url, '--timeout', '5000', '--upstream-ca', selfSignedFile],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, MCPSCOPE_HOME: join(dir, 'home-verify-ca') },
        },
      );
      children.push(child);
      let err = '';
      child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
      await once(child, 'exit');
      // The TLS connection is made (this stand-in's initialize answer is not one, which verify then says).
      expect(err).not.toMatch(/fetch failed|certificate|SELF_SIGNED/i);
      expect(hits).toBeGreaterThan(0);
    } finally {
      trusted.closeAllConnections();
      trusted.close();
    }
  });

  /** The CLI with --otlp at the self-signed server, proxying one call; resolves with /api/stats' telemetry once `done` says so. */
  async function otlpTo(name: string, env: Record<string, string>, done: (t: TelemetryStats) => boolean): Promise<TelemetryStats> {
    const collector = upstreams.find((u) => u.name === 'self-signed')!;
    const plain = createHttpServer(
      (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":7,"result":{}}'),
    );
    plain.listen(0, '127.0.0.1');
    await once(plain, 'listening');
    try {
      const target = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/mcp`;
      const otlp = collector.url.replace(/\/mcp$/, '');
      const child = spawn(process.execPath, [BIN, '--target', target, '--port', '0', '--ui-port', '0', '--otlp', otlp], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: {
          ...process.env,
          NODE_TLS_REJECT_UNAUTHORIZED: '0',
          MCPSCOPE_HOME: join(dir, `home-${name}`),
          MCPSCOPE_TOKEN: 'otlp-tls-token-0123456789',
          OTEL_BSP_SCHEDULE_DELAY: '50',
          ...env,
        },
      });
      children.push(child);
      let err = '';
      const proxyUrl = new Promise<string>((resolve) =>
        child.stderr!.on('data', (c: Buffer) => {
          err += c.toString();
          const m = /proxy\s+(http:\/\/127\.0\.0\.1:\d+\/mcp)[\s\S]*UI\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(err);
          if (m) resolve(`${m[1]} ${m[2]}`);
        }),
      );
      const [proxy, ui] = (await proxyUrl).split(' ');
      expect((await fetch(proxy, ping)).status).toBe(200);
      let telemetry: TelemetryStats | undefined;
      for (const deadline = Date.now() + 10_000; !(telemetry && done(telemetry)) && Date.now() < deadline;) {
        if (telemetry) await new Promise((r) => setTimeout(r, 50));
        const stats = (await (
          await fetch(`${ui}/api/stats`, { headers: { authorization: 'Bearer otlp-tls-token-0123456789' } })
        ).json()) as { telemetry?: TelemetryStats };
        telemetry = stats.telemetry;
      }
      return telemetry!;
    } finally {
      plain.closeAllConnections();
      plain.close();
    }
  }

  it('--otlp https://…: the exporter checks the collector’s certificate too (a self-signed collector gets nothing)', async () => {
    const collector = upstreams.find((u) => u.name === 'self-signed')!;
    const telemetry = await otlpTo('otlp', {}, (t) => t.lastError !== undefined);
    expect(telemetry.lastError).toMatch(/self[- ]signed/i);
    expect(collector.hits).toBe(0);
  });

  it('--otlp https://…: a collector trusted with OTEL_EXPORTER_OTLP_CERTIFICATE gets the spans (the exporter reads the variable as the SDK does)', async () => {
    const collector = upstreams.find((u) => u.name === 'self-signed')!;
    const before = collector.hits;
    const telemetry = await otlpTo('otlp-trusted', { OTEL_EXPORTER_OTLP_CERTIFICATE: selfSignedFile }, (t) => t.spansExported > 0);
    expect(telemetry.lastError).toBeUndefined();
    expect(telemetry.spansExported).toBeGreaterThan(0);
    expect(collector.hits).toBeGreaterThan(before);
  });
});

describe('the notice is said once per process', () => {
  it('a proxy thread started again (after a crash) does not say it a second time', async () => {
    const said: string[] = [];
    const env = { tls: process.env.NODE_TLS_REJECT_UNAUTHORIZED, home: process.env.MCPSCOPE_HOME };
    // The proxy thread's stderr comes out of this thread's (a worker's stdio is piped to its parent's).
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      said.push(String(chunk));
      return true;
    });
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    process.env.MCPSCOPE_HOME = join(dir, 'home-restart');
    const scope = await startMcpscope({ forward: { port: 0 }, uiPort: false });
    try {
      const first = scope.proxyThread!.worker;
      const restarted = new Promise<void>((resolve) => {
        const onWarning = (w: Error) => {
          if (!/started it again on the same ports/.test(w.message)) return;
          process.off('warning', onWarning);
          resolve();
        };
        process.on('warning', onWarning);
      });
      await first.terminate(); // as a crash would end it
      await restarted;
      // A round trip to the new thread: what it wrote while starting its ports has come over.
      await scope.settle();
      expect(scope.proxyThread!.worker).not.toBe(first);
      expect(said.join('').match(NOTICE)).toHaveLength(1);
    } finally {
      await scope.close();
      spy.mockRestore();
      for (const [name, value] of [
        ['NODE_TLS_REJECT_UNAUTHORIZED', env.tls],
        ['MCPSCOPE_HOME', env.home],
      ] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });
});
