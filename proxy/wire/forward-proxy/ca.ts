/**
 * The local certificate authority of forward mode's TLS interception.
 *
 * To read HTTPS traffic the forward proxy ends the client's TLS itself, with a certificate for the
 * host the client asked for, signed by a CA that only this user on this machine has: created on
 * first use in `$MCPSCOPE_HOME/ca` (`~/.mcpscope/ca`) as `ca.pem` and `ca-key.pem`, the directory
 * 0700 and the key 0600. Only clients told to trust that CA (`mcpscope run` does it per command,
 * `mcpscope ca` explains how by hand) accept the certificates.
 *
 * Keys are ECDSA P-256 and signatures SHA-256, made with WebCrypto (`globalThis.crypto`) and
 * @peculiar/x509 (no native code, no hand-written ASN.1), so a LeafIssuer also works inside the
 * proxy's worker_thread, built from the two PEM strings. Leaf certificates are made on demand per
 * host and kept in memory; all leaves of one issuer share one key pair, as mitmproxy's do: a
 * P-256 key is cheap, but signing is all a new host should cost.
 */
import { chmodSync, linkSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
// @peculiar/x509's dependency injection (tsyringe) needs the Reflect metadata API: its README
// asks for this polyfill to be loaded first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { mcpscopeHome } from '../home.js';

export { x509 };

const crypto = globalThis.crypto;
x509.cryptoProvider.set(crypto);

export interface CaMaterial {
  certPem: string;
  keyPem: string;
}

export interface LocalCa extends CaMaterial {
  dir: string;
  certPath: string;
  keyPath: string;
  /** True when this call made the CA (it did not exist yet). */
  created: boolean;
}

const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;
const CA_YEARS = 10;
/** The most that browsers accept for a server certificate (CA/Browser Forum), kept to for all clients. */
const LEAF_DAYS = 397;
const LEAF_CACHE_SIZE = 1000;
const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const ON_WINDOWS = process.platform === 'win32';

/** `$MCPSCOPE_HOME/ca`, else `~/.mcpscope/ca`. */
export function caDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(mcpscopeHome(env), 'ca');
}

/** Loads the CA from caDir, or makes it there on first use. */
export async function loadOrCreateCa(options: { env?: NodeJS.ProcessEnv; warn?: (text: string) => void } = {}): Promise<LocalCa> {
  const dir = caDir(options.env);
  const certPath = join(dir, 'ca.pem');
  const keyPath = join(dir, 'ca-key.pem');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode passes through the umask, and an older directory may be more open: set it exactly.
  if (!ON_WINDOWS) chmodSync(dir, 0o700);

  // Another process may be half-way through making the CA (its key is in place, its certificate
  // a moment later): a lone file younger than a few seconds is waited for, an older one is broken.
  const deadline = Date.now() + 3000;
  for (;;) {
    const cert = readIfThere(certPath);
    const key = readIfThere(keyPath);
    if (cert !== undefined && key !== undefined) {
      fixKeyMode(keyPath, options.warn);
      await checkPair(cert, key, certPath, keyPath, dir);
      return { dir, certPath, keyPath, certPem: cert, keyPem: key, created: false };
    }
    if (cert === undefined && key === undefined) {
      const made = await createCaMaterial();
      if (publishPair(made, certPath, keyPath)) return { dir, certPath, keyPath, ...made, created: true };
      continue; // another process won: read what it wrote
    }
    const lone = cert !== undefined ? certPath : keyPath;
    if (Date.now() < deadline && Date.now() - (statSync(lone, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      continue;
    }
    throw halfWritten(dir, `${lone} is there but ${lone === certPath ? keyPath : certPath} is missing`);
  }
}

function halfWritten(dir: string, what: string): Error {
  return new Error(
    `The mcpscope CA in ${dir} cannot be used: ${what}. ` +
      `Delete the directory (rm -rf ${JSON.stringify(dir)}) and mcpscope will make a new CA on its next start; ` +
      `clients that trusted the old one must then be told to trust the new one (mcpscope ca shows how).`,
  );
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** A key that group or others may read is made private again, and the user is told. */
function fixKeyMode(keyPath: string, warn?: (text: string) => void): void {
  if (ON_WINDOWS) return;
  const mode = statSync(keyPath).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  chmodSync(keyPath, 0o600);
  warn?.(
    `the CA key ${keyPath} was readable by other users (mode ${mode.toString(8)}); its mode is now 600. If others could read it, delete ${join(keyPath, '..')} to make a new CA.`,
  );
}

/** The certificate parses, is a CA, is in date, and belongs to the key. */
async function checkPair(certPem: string, keyPem: string, certPath: string, keyPath: string, dir: string): Promise<void> {
  let cert: x509.X509Certificate;
  let key: CryptoKey;
  try {
    cert = new x509.X509Certificate(certPem);
  } catch (err) {
    throw halfWritten(dir, `${certPath} is not a readable certificate (${(err as Error).message})`);
  }
  try {
    key = await importKey(keyPem);
  } catch (err) {
    throw halfWritten(dir, `${keyPath} is not a readable P-256 private key (${(err as Error).message})`);
  }
  const fromKey = (await crypto.subtle.exportKey('jwk', key)) as JsonWebKey;
  const fromCert = (await crypto.subtle.exportKey('jwk', await cert.publicKey.export(EC_KEY, ['verify']))) as JsonWebKey;
  if (fromKey.x !== fromCert.x || fromKey.y !== fromCert.y) throw halfWritten(dir, `${keyPath} is not the key of ${certPath}`);
  if (cert.getExtension(x509.BasicConstraintsExtension)?.ca !== true) throw halfWritten(dir, `${certPath} is not a CA certificate`);
  if (cert.notAfter.getTime() < Date.now()) throw halfWritten(dir, `${certPath} expired on ${cert.notAfter.toISOString()}`);
}

function importKey(keyPem: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(keyPem), EC_KEY, true, ['sign']);
}

async function exportKeyPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

/** 16 random bytes, hex, high bit clear (positive) and second-highest set (always 16 bytes long). */
function randomSerial(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] & 0x7f) | 0x40;
  return Buffer.from(bytes).toString('hex');
}

/** "alice@laptop", so that a CA in a trust store says whose it is. */
function owner(): string {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return `${process.env.USER || process.env.USERNAME || 'user'}@${hostname()}`; // no passwd entry (some containers)
  }
}

async function createCaMaterial(): Promise<CaMaterial> {
  const keys = (await crypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify'])) as CryptoKeyPair;
  const notBefore = new Date(Date.now() - DAY_MS);
  const notAfter = new Date(notBefore);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CA_YEARS);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: [{ CN: [`mcpscope local CA (${owner()})`] }, { O: ['mcpscope'] }],
    keys,
    ...{ serialNumber: randomSerial(), notBefore, notAfter, signingAlgorithm: SIGNING },
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: `${cert.toString('pem')}\n`, keyPem: `${await exportKeyPem(keys.privateKey)}\n` };
}

/** A temp file next to `path`, written whole with `mode` (exactly: the umask is undone), to be renamed. */
function writeTemp(path: string, text: string, mode: number): string {
  const tmp = `${path}.${process.pid}.${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString('hex')}.tmp`;
  writeFileSync(tmp, text, { mode });
  if (!ON_WINDOWS) chmodSync(tmp, mode);
  return tmp;
}

/**
 * Puts a new CA in place; false when another process got there first. The key is hard-linked
 * from a complete 0600 temp file, which fails if ca-key.pem exists: the one process whose link
 * succeeds writes the certificate (temp file and rename), the others read the winner's pair.
 */
function publishPair(ca: CaMaterial, certPath: string, keyPath: string): boolean {
  const keyTmp = writeTemp(keyPath, ca.keyPem, 0o600);
  try {
    linkSync(keyTmp, keyPath);
    unlinkSync(keyTmp);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      unlinkSync(keyTmp);
      return false;
    }
    // A file system without hard links: a plain rename (last writer wins, still never half a file).
    renameSync(keyTmp, keyPath);
  }
  renameSync(writeTemp(certPath, ca.certPem, 0o644), certPath);
  return true;
}

/** Makes the certificates the forward proxy shows clients, one per host, signed by the CA. */
export class LeafIssuer {
  private readonly ca: CaMaterial;
  private setup:
    Promise<{ caCert: x509.X509Certificate; caKey: CryptoKey; keys: CryptoKeyPair; keyPem: string; aki: x509.Extension }> | undefined;
  /** Insertion order is use order (a hit moves its host to the end): the first key is the least recently used. */
  private readonly cache = new Map<string, Promise<CaMaterial>>();

  constructor(ca: CaMaterial) {
    this.ca = { certPem: ca.certPem, keyPem: ca.keyPem };
  }

  /** The certificate and key for `host` (a name, an IPv4 address, or an IPv6 one with or without brackets). */
  leafFor(host: string): Promise<CaMaterial> {
    let name: string;
    try {
      name = normalizeHost(host);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const cached = this.cache.get(name);
    if (cached !== undefined) {
      this.cache.delete(name);
      this.cache.set(name, cached);
      return cached;
    }
    const made = this.issue(name);
    this.cache.set(name, made);
    made.catch(() => {
      if (this.cache.get(name) === made) this.cache.delete(name); // a failure is not remembered
    });
    if (this.cache.size > LEAF_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    return made;
  }

  private prepare() {
    this.setup ??= (async () => {
      const caCert = new x509.X509Certificate(this.ca.certPem);
      const caKey = await importKey(this.ca.keyPem);
      const keys = (await crypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify'])) as CryptoKeyPair;
      const aki = await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey);
      return { caCert, caKey, keys, keyPem: `${await exportKeyPem(keys.privateKey)}\n`, aki };
    })();
    this.setup.catch(() => (this.setup = undefined));
    return this.setup;
  }

  private async issue(host: string): Promise<CaMaterial> {
    const { caCert, caKey, keys, keyPem, aki } = await this.prepare();
    const notBefore = new Date(Date.now() - DAY_MS);
    const notAfter = new Date(Math.min(notBefore.getTime() + LEAF_DAYS * DAY_MS, caCert.notAfter.getTime()));
    const cert = await x509.X509CertificateGenerator.create({
      // A common name is at most 64 characters; past that the host is in the SAN only.
      subject: host.length <= 64 ? [{ CN: [host] }] : [{ O: ['mcpscope'] }],
      issuer: caCert.subjectName,
      publicKey: keys.publicKey,
      signingKey: caKey,
      ...{ serialNumber: randomSerial(), notBefore, notAfter, signingAlgorithm: SIGNING },
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([{ type: isIP(host) ? 'ip' : 'dns', value: host }]),
        aki,
      ],
    });
    return { certPem: `${cert.toString('pem')}\n`, keyPem };
  }
}

/** Lower case, IPv6 brackets and zone (`%eth0`) removed; an unusable name is an Error. */
function normalizeHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  if (name.includes(':')) name = name.replace(/%.*$/, '');
  if (name.endsWith('.') && !isIP(name)) name = name.slice(0, -1);
  if (isIP(name)) return name;
  // DNS names in a certificate are ASCII (IDNs arrive as punycode); "_" occurs in real host names.
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(name) || name.length > 253)
    throw new Error(`Cannot make a certificate for ${JSON.stringify(host)}: not a host name or IP address.`);
  return name;
}

/**
 * A PEM bundle for clients that trust one file instead of adding to their store (Python's
 * SSL_CERT_FILE / REQUESTS_CA_BUNDLE): Node's root certificates, the certificates the user already
 * gave Node (NODE_EXTRA_CA_CERTS) or Python (SSL_CERT_FILE, REQUESTS_CA_BUNDLE) when readable, and
 * the CA. Written to caDir/trust-bundle.pem (0644) anew each call, through a temp file and a rename
 * so that a client reading it meanwhile sees the old or the new one whole; returns its path.
 */
export function writeTrustBundle(ca: LocalCa, env: NodeJS.ProcessEnv = process.env): string {
  const path = join(ca.dir, 'trust-bundle.pem');
  const certs = new Set<string>();
  const add = (text: string) => {
    for (const m of text.matchAll(CERTIFICATE_BLOCK)) certs.add(m[0].replace(/\r\n/g, '\n'));
  };
  for (const root of rootCertificates) add(root);
  for (const file of [env.NODE_EXTRA_CA_CERTS, env.SSL_CERT_FILE, env.REQUESTS_CA_BUNDLE]) {
    // Our own bundle (set by an earlier `mcpscope run`) is not read into itself.
    if (!file || file === path) continue;
    try {
      add(readFileSync(file, 'utf8'));
    } catch {
      /* unreadable: that client would have ignored it too */
    }
  }
  add(ca.certPem);
  renameSync(writeTemp(path, `${[...certs].join('\n')}\n`, 0o644), path);
  return path;
}
