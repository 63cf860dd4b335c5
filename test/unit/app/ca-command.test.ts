/** `mcpscope ca` (proxy/app/commands/ca.ts): what it prints and its exit codes, on a temp MCPSCOPE_HOME. */
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../proxy/app/commands/ca.js';

let home: string;
let savedHome: string | undefined;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mcpscope-ca-cmd-'));
  savedHome = process.env.MCPSCOPE_HOME;
  process.env.MCPSCOPE_HOME = home;
});
afterEach(() => {
  if (savedHome === undefined) delete process.env.MCPSCOPE_HOME;
  else process.env.MCPSCOPE_HOME = savedHome;
  vi.restoreAllMocks();
  rmSync(home, { recursive: true, force: true });
});

/** Runs main(argv) and returns its exit code with what it wrote to stdout and stderr. */
async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
  try {
    return { code: await main(argv), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe('mcpscope ca', () => {
  const certPath = () => join(home, 'ca', 'ca.pem');

  it('--pem makes the CA and prints only its certificate', async () => {
    const { code, out, err } = await run(['--pem']);
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toBe(readFileSync(certPath(), 'utf8'));
    expect(out.match(/-----BEGIN CERTIFICATE-----/g)).toHaveLength(1);
    expect(new X509Certificate(out).ca).toBe(true);
  });

  it('--path prints only the file name', async () => {
    const { code, out } = await run(['--path']);
    expect(code).toBe(0);
    expect(out).toBe(`${certPath()}\n`);
    expect(existsSync(certPath())).toBe(true);
  });

  it('without options prints the path first, then how to trust and untrust the CA', async () => {
    const first = await run([]);
    expect(first.code).toBe(0);
    const lines = first.out.split('\n');
    expect(lines[0]).toBe(certPath());
    expect(first.out).toContain('A new CA was made');
    const keyPath = join(home, 'ca', 'ca-key.pem');
    const bundle = join(home, 'ca', 'trust-bundle.pem');
    expect(first.out).toContain(keyPath);
    expect(first.out).toContain('mcpscope run -- <command>');
    expect(first.out).toContain(`NODE_EXTRA_CA_CERTS=${certPath()}`);
    expect(first.out).toContain(`SSL_CERT_FILE=${bundle}`);
    expect(first.out).toContain(`REQUESTS_CA_BUNDLE=${bundle}`);
    expect(first.out).toContain(`--cacert ${certPath()}`);
    expect(first.out).toContain('/usr/local/share/ca-certificates/mcpscope.crt');
    expect(first.out).toContain('update-ca-certificates');
    expect(first.out).toContain('security add-trusted-cert');
    expect(first.out).toContain('security remove-trusted-cert');
    expect(first.out).toContain(`delete ${join(home, 'ca')}`);
    expect(readFileSync(bundle, 'utf8')).toContain(readFileSync(certPath(), 'utf8').trim());

    const second = await run([]);
    expect(second.out).toContain('made earlier and is reused');
    expect(second.out.split('\n')[0]).toBe(certPath());
  });

  it('--help prints the usage; unknown options and extra words exit 2 with a message', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('mcpscope ca --pem');
    expect(existsSync(join(home, 'ca'))).toBe(false); // help makes nothing

    const bogus = await run(['--bogus']);
    expect(bogus.code).toBe(2);
    expect(bogus.out).toBe('');
    expect(bogus.err).toMatch(/mcpscope ca: .*--bogus/);

    expect((await run(['extra'])).code).toBe(2);
    const both = await run(['--pem', '--path']);
    expect(both.code).toBe(2);
    expect(both.err).toContain('not both');
  });

  it('a broken CA is exit 1 with the fix on stderr', async () => {
    expect((await run(['--path'])).code).toBe(0);
    rmSync(join(home, 'ca', 'ca-key.pem'));
    const old = new Date(Date.now() - 60_000);
    utimesSync(certPath(), old, old);
    const broken = await run([]);
    expect(broken.code).toBe(1);
    expect(broken.out).toBe('');
    expect(broken.err).toContain('Delete the directory');
  });
});
