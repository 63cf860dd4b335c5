/** proxy/wire/forward-proxy/client-env.ts: the variables `mcpscope run` and `mcpscope env` set. */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientEnv, PRELOAD_PATH, shellExports } from '../../../proxy/wire/forward-proxy/client-env.js';
import { loadOrCreateCa } from '../../../proxy/wire/forward-proxy/ca.js';

async function ca() {
  return loadOrCreateCa({ env: { MCPSCOPE_HOME: mkdtempSync(join(tmpdir(), 'mcpscope-env-')) } });
}

describe('clientEnv', () => {
  it('names the proxy, keeps only the UI port out of it, trusts the CA and preloads the proxy agent', async () => {
    const c = await ca();
    const { set, notes } = clientEnv({ proxyUrl: 'http://127.0.0.1:7000', uiPort: 7001, ca: c, base: {} });
    expect(set.HTTPS_PROXY).toBe('http://127.0.0.1:7000');
    expect(set.http_proxy).toBe('http://127.0.0.1:7000');
    expect(set.NO_PROXY).toBe('127.0.0.1:7001,localhost:7001,[::1]:7001');
    expect(set.NODE_EXTRA_CA_CERTS).toBe(c.certPath);
    expect(readFileSync(set.SSL_CERT_FILE, 'utf8')).toContain(c.certPem.trim());
    expect(set.NODE_OPTIONS).toBe(`--import ${JSON.stringify(new URL(`file://${PRELOAD_PATH}`).href)}`);
    expect(readFileSync(PRELOAD_PATH, 'utf8')).toContain('EnvHttpProxyAgent');
    expect(notes).toEqual([]);
  });

  it("joins the user's NODE_EXTRA_CA_CERTS with the CA (Node reads one file), keeps NODE_OPTIONS, and says when it replaces NO_PROXY", async () => {
    const c = await ca();
    const mine = join(c.dir, 'corporate.pem');
    writeFileSync(mine, '-----BEGIN CERTIFICATE-----\nMINE\n-----END CERTIFICATE-----\n');
    const base = { NODE_EXTRA_CA_CERTS: mine, NODE_OPTIONS: '--max-old-space-size=100', NO_PROXY: 'localhost' };
    const { set, notes } = clientEnv({ proxyUrl: 'http://127.0.0.1:7000', uiPort: 7001, ca: c, base });
    const joined = readFileSync(set.NODE_EXTRA_CA_CERTS, 'utf8');
    expect(joined).toContain('MINE');
    expect(joined).toContain(c.certPem.trim());
    expect(set.NODE_OPTIONS.startsWith('--max-old-space-size=100 --import ')).toBe(true);
    // Run again inside a run: nothing is added twice.
    expect(clientEnv({ proxyUrl: 'http://127.0.0.1:7000', uiPort: 7001, ca: c, base: { ...base, ...set } }).set.NODE_OPTIONS).toBe(
      set.NODE_OPTIONS,
    );
    expect(notes.join('\n')).toContain('NO_PROXY was "localhost"');
  });

  it('quotes values for a POSIX shell', () => {
    expect(shellExports({ A: "it's", B: 'x y' })).toBe(`export A='it'\\''s'\nexport B='x y'`);
  });
});
