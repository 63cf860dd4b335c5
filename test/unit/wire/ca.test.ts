/**
 * The local CA of forward mode (proxy/wire/forward-proxy/ca.ts): files and their modes, broken CAs, leaf
 * certificates checked by Node's own X.509 code, and real TLS handshakes that fail when a
 * certificate names the wrong host. Every test has its own MCPSCOPE_HOME.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { connect, createServer, rootCertificates, type Server } from 'node:tls';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { caDir, LeafIssuer, loadOrCreateCa, writeTrustBundle } from '../../../proxy/wire/forward-proxy/ca.js';

const posix = process.platform !== 'win32';
let home: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mcpscope-ca-'));
  env = { MCPSCOPE_HOME: home };
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe('loadOrCreateCa', () => {
  it('makes a CA in $MCPSCOPE_HOME/ca (directory 0700, key 0600) and loads the same one afterwards', async () => {
    const ca = await loadOrCreateCa({ env });
    expect(ca.created).toBe(true);
    expect(ca.dir).toBe(join(home, 'ca'));
    expect(caDir(env)).toBe(ca.dir);
    expect(ca.certPath).toBe(join(home, 'ca', 'ca.pem'));
    expect(ca.keyPath).toBe(join(home, 'ca', 'ca-key.pem'));
    if (posix) {
      expect(mode(ca.dir)).toBe(0o700);
      expect(mode(ca.keyPath)).toBe(0o600);
      expect(mode(ca.certPath)).toBe(0o644);
    }
    expect(readFileSync(ca.keyPath, 'utf8')).toContain('-----BEGIN PRIVATE KEY-----');
    const cert = new X509Certificate(readFileSync(ca.certPath));
    expect(cert.ca).toBe(true);
    expect(cert.subject).toMatch(/^CN=mcpscope local CA \(.+@.+\)$/m);
    expect(cert.subject).toContain('O=mcpscope');
    expect(cert.issuer).toBe(cert.subject);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(cert.serialNumber).toMatch(/^[0-7][0-9A-F]{31}$/); // 16 bytes, positive
    const from = new Date(cert.validFrom).getTime();
    const to = new Date(cert.validTo).getTime();
    expect(Date.now() - from).toBeGreaterThan(23 * 3600_000);
    expect((to - from) / (365.25 * 86400_000)).toBeCloseTo(10, 1);
    expect(cert.keyUsage).toBeUndefined(); // Node lists extended key usage only; the CA has none

    const again = await loadOrCreateCa({ env });
    expect(again.created).toBe(false);
    expect(again.certPem).toBe(ca.certPem);
    expect(again.keyPem).toBe(ca.keyPem);
  });

  it.runIf(posix)('makes an older, more open directory 0700 and a key others could read 0600, and says so', async () => {
    const ca = await loadOrCreateCa({ env });
    chmodSync(ca.dir, 0o755);
    chmodSync(ca.keyPath, 0o644);
    const warnings: string[] = [];
    const again = await loadOrCreateCa({ env, warn: (text) => warnings.push(text) });
    expect(again.created).toBe(false);
    expect(mode(ca.dir)).toBe(0o700);
    expect(mode(ca.keyPath)).toBe(0o600);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(ca.keyPath);
    expect(warnings[0]).toContain('644');
  });

  it('refuses a half-written CA with a message naming the files and the fix', async () => {
    const ca = await loadOrCreateCa({ env });
    rmSync(ca.keyPath);
    const old = new Date(Date.now() - 60_000); // not one another process is making right now
    utimesSync(ca.certPath, old, old);
    const err = await loadOrCreateCa({ env }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain(ca.certPath);
    expect((err as Error).message).toContain(ca.keyPath);
    expect((err as Error).message).toMatch(/Delete the directory/);
    expect((err as Error).message).toContain(ca.dir);
  });

  it('refuses an unreadable certificate, and a key that belongs to another certificate', async () => {
    const ca = await loadOrCreateCa({ env });
    writeFileSync(ca.certPath, 'not a certificate\n');
    await expect(loadOrCreateCa({ env })).rejects.toThrow(/ca\.pem is not a readable certificate.*Delete the directory/);

    const otherHome = mkdtempSync(join(tmpdir(), 'mcpscope-ca-other-'));
    try {
      const other = await loadOrCreateCa({ env: { MCPSCOPE_HOME: otherHome } });
      writeFileSync(ca.certPath, other.certPem);
      await expect(loadOrCreateCa({ env })).rejects.toThrow(/ca-key\.pem is not the key of .*ca\.pem/);
    } finally {
      rmSync(otherHome, { recursive: true, force: true });
    }
  });

  it('makes one CA when several callers start at once', async () => {
    const all = await Promise.all([1, 2, 3, 4].map(() => loadOrCreateCa({ env })));
    expect(new Set(all.map((ca) => ca.certPem)).size).toBe(1);
    expect(all.filter((ca) => ca.created)).toHaveLength(1);
    expect(readFileSync(all[0].certPath, 'utf8')).toBe(all[0].certPem);
    expect(readFileSync(all[0].keyPath, 'utf8')).toBe(all[0].keyPem);
  });
});

describe('LeafIssuer', () => {
  it('signs a certificate for a host name that is valid for that host only', async () => {
    const ca = await loadOrCreateCa({ env });
    const caCert = new X509Certificate(ca.certPem);
    const leaf = await new LeafIssuer(ca).leafFor('localhost');
    const cert = new X509Certificate(leaf.certPem);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.subject).toBe('CN=localhost');
    expect(cert.issuer).toBe(caCert.subject);
    expect(cert.subjectAltName).toBe('DNS:localhost');
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkHost('other.example')).toBeUndefined();
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // serverAuth
    expect(cert.checkPrivateKey(createPrivateKey(leaf.keyPem))).toBe(true);
    expect(leaf.keyPem).toContain('-----BEGIN PRIVATE KEY-----');
    const from = new Date(cert.validFrom).getTime();
    const to = new Date(cert.validTo).getTime();
    expect(Date.now() - from).toBeGreaterThan(23 * 3600_000);
    expect(Math.round((to - from) / 86400_000)).toBe(397);
    expect(to).toBeLessThanOrEqual(new Date(caCert.validTo).getTime());
  });

  it('puts IP addresses in the SAN as addresses, with or without brackets', async () => {
    const ca = await loadOrCreateCa({ env });
    const caCert = new X509Certificate(ca.certPem);
    const issuer = new LeafIssuer(ca);
    const v4 = new X509Certificate((await issuer.leafFor('127.0.0.1')).certPem);
    expect(v4.checkIssued(caCert) && v4.verify(caCert.publicKey)).toBe(true);
    expect(v4.subjectAltName).toBe('IP Address:127.0.0.1');
    expect(v4.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(v4.checkIP('127.0.0.2')).toBeUndefined();
    expect(v4.checkHost('localhost')).toBeUndefined();
    for (const host of ['::1', '[::1]']) {
      const v6 = new X509Certificate((await issuer.leafFor(host)).certPem);
      expect(v6.checkIssued(caCert) && v6.verify(caCert.publicKey)).toBe(true);
      expect(v6.checkIP('::1')).toBe('::1');
      expect(v6.checkIP('::2')).toBeUndefined();
    }
    expect(await issuer.leafFor('[::1]')).toBe(await issuer.leafFor('::1'));
  });

  it('remembers leaves, shares one promise between concurrent callers, and one key between hosts', async () => {
    const issuer = new LeafIssuer(await loadOrCreateCa({ env }));
    const [a, b] = [issuer.leafFor('api.example.com'), issuer.leafFor('API.example.com')];
    expect(a).toBe(b);
    const first = await a;
    expect((await issuer.leafFor('api.example.com')).certPem).toBe(first.certPem);
    const other = await issuer.leafFor('www.example.com');
    expect(other.certPem).not.toBe(first.certPem);
    expect(other.keyPem).toBe(first.keyPem);
  });

  it('refuses something that is not a host name', async () => {
    const issuer = new LeafIssuer(await loadOrCreateCa({ env }));
    await expect(issuer.leafFor('')).rejects.toThrow(/not a host name/);
    await expect(issuer.leafFor('a b.example')).rejects.toThrow(/not a host name/);
    await expect(issuer.leafFor('bücher.example')).rejects.toThrow(/not a host name/);
  });

  it('works in a worker_thread, built from the two PEM strings', async () => {
    const ca = await loadOrCreateCa({ env });
    const here = import.meta.url;
    const pkgPath = createRequire(here).resolve('tsx/package.json');
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
    const tsx = new URL(pkg.exports['./esm/api']!.import.default, pathToFileURL(pkgPath)).href;
    const entry = new URL('../../../proxy/wire/forward-proxy/ca.ts', here).href;
    const code = `const { parentPort, workerData } = await import('node:worker_threads');
      (await import(${JSON.stringify(tsx)})).register();
      const { LeafIssuer } = await import(${JSON.stringify(entry)});
      parentPort.postMessage(await new LeafIssuer(workerData).leafFor('worker.example'));`;
    const worker = new Worker(`import(${JSON.stringify(`data:text/javascript,${encodeURIComponent(code)}`)})`, {
      eval: true,
      workerData: { certPem: ca.certPem, keyPem: ca.keyPem },
    });
    const leaf = await new Promise<{ certPem: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    const cert = new X509Certificate(leaf.certPem);
    expect(cert.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    expect(cert.checkHost('worker.example')).toBe('worker.example');
  });
});

describe('TLS handshakes with a leaf', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function serve(host: string): Promise<{ port: number; caPem: string }> {
    const ca = await loadOrCreateCa({ env });
    const leaf = await new LeafIssuer(ca).leafFor(host);
    server = createServer({ key: leaf.keyPem, cert: leaf.certPem }, (socket) => socket.end('hello'));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, caPem: ca.certPem };
  }

  function handshake(port: number, caPem: string, servername?: string) {
    return new Promise<{ authorized: boolean; error?: NodeJS.ErrnoException }>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1', servername, ca: caPem }, () => {
        resolve({ authorized: socket.authorized });
        socket.destroy();
      });
      socket.once('error', (error) => resolve({ authorized: false, error }));
    });
  }

  it('a client trusting the CA accepts the leaf for its host, and rejects it for another', async () => {
    const { port, caPem } = await serve('localhost');
    expect(await handshake(port, caPem, 'localhost')).toEqual({ authorized: true });
    const wrong = await handshake(port, caPem, 'evil.example');
    expect(wrong.error?.code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('a client that does not trust the CA rejects the leaf', async () => {
    const { port } = await serve('localhost');
    const otherHome = mkdtempSync(join(tmpdir(), 'mcpscope-ca-other-'));
    try {
      const other = await loadOrCreateCa({ env: { MCPSCOPE_HOME: otherHome } });
      const result = await handshake(port, other.certPem, 'localhost');
      expect(result.error?.code).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY/);
    } finally {
      rmSync(otherHome, { recursive: true, force: true });
    }
  });

  it('an IP leaf passes for its address (no SNI) and fails for a host name', async () => {
    const { port, caPem } = await serve('127.0.0.1');
    expect(await handshake(port, caPem)).toEqual({ authorized: true });
    expect((await handshake(port, caPem, 'localhost')).error?.code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
  });
});

describe('writeTrustBundle', () => {
  it('writes the public roots, the extra certificates Node was given, and the CA', async () => {
    const ca = await loadOrCreateCa({ env });
    const other = await loadOrCreateCa({ env: { MCPSCOPE_HOME: join(home, 'other') } });
    mkdirSync(join(home, 'extra'));
    const extra = join(home, 'extra', 'corp.pem');
    writeFileSync(extra, other.certPem);
    const path = writeTrustBundle(ca, { ...env, NODE_EXTRA_CA_CERTS: extra });
    expect(path).toBe(join(ca.dir, 'trust-bundle.pem'));
    if (posix) expect(mode(path)).toBe(0o644);
    const text = readFileSync(path, 'utf8');
    expect(text).toContain(ca.certPem.trim());
    expect(text).toContain(other.certPem.trim());
    expect(text).toContain(rootCertificates[0].trim());
    expect(text.match(/BEGIN CERTIFICATE/g)!.length).toBeGreaterThanOrEqual(rootCertificates.length);

    // Rewritten each call; a missing extra file is passed over.
    const again = readFileSync(writeTrustBundle(ca, { ...env, NODE_EXTRA_CA_CERTS: join(home, 'nope.pem') }), 'utf8');
    expect(again).toContain(ca.certPem.trim());
    expect(again).not.toContain(other.certPem.trim());
  });
});
