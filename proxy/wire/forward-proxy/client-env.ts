/**
 * The environment that puts a client behind mcpscope's forward proxy, for `mcpscope run` (which
 * hands it to the command it starts) and `mcpscope env` (which prints it as shell exports):
 * - HTTP_PROXY/HTTPS_PROXY (and lower-case): read by Python (httpx, requests, aiohttp with
 *   trust_env), curl, Go, and by Node's fetch with NODE_USE_ENV_PROXY=1 (recent Node releases) or
 *   the preload below;
 * - NO_PROXY: only mcpscope's own UI port, so that the UI, its feed and stdio wrappers never
 *   loop through the proxy (a NO_PROXY the user had would let hosts bypass mcpscope: it is
 *   replaced, and a note says so);
 * - NODE_EXTRA_CA_CERTS: mcpscope's CA (joined to the one the user had, since Node reads one file);
 * - SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE: a bundle of the system roots + the CA,
 *   because those replace a client's whole trust store;
 * - NODE_OPTIONS=--import <bin/env-proxy-preload.mjs>: Node < 24's fetch ignores proxy variables,
 *   so undici's EnvHttpProxyAgent becomes the global dispatcher.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeTrustBundle, type LocalCa } from './ca.js';

/** bin/env-proxy-preload.mjs of this package (the same file from source and from dist/). */
export const PRELOAD_PATH = fileURLToPath(
  new URL(
    import.meta.url.includes('/dist/proxy/') ? '../../../../bin/env-proxy-preload.mjs' : '../../../bin/env-proxy-preload.mjs',
    import.meta.url,
  ),
);

export interface ClientEnv {
  /** The variables to set (everything else stays as it was). */
  set: Record<string, string>;
  /** Plain-words notes for the user (a replaced NO_PROXY, say). */
  notes: string[];
}

/** One PEM file for NODE_EXTRA_CA_CERTS: the user's extra CAs (if any) followed by mcpscope's. */
function nodeExtraCa(ca: LocalCa, previous: string | undefined): string {
  if (!previous || previous === ca.certPath) return ca.certPath;
  const path = join(ca.dir, 'node-extra-ca.pem');
  if (previous === path) return path;
  let before = '';
  try {
    before = readFileSync(previous, 'utf8');
  } catch {
    return ca.certPath;
  }
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${before.trimEnd()}\n${ca.certPem.trimEnd()}\n`, { mode: 0o644 });
  renameSync(tmp, path);
  return path;
}

export function clientEnv(options: { proxyUrl: string; uiPort: number; ca: LocalCa; base?: NodeJS.ProcessEnv }): ClientEnv {
  const base = options.base ?? process.env;
  const { proxyUrl, uiPort, ca } = options;
  const notes: string[] = [];
  const noProxy = [`127.0.0.1:${uiPort}`, `localhost:${uiPort}`, `[::1]:${uiPort}`].join(',');
  const hadNoProxy = base.NO_PROXY ?? base.no_proxy;
  if (hadNoProxy && hadNoProxy !== noProxy)
    notes.push(
      `NO_PROXY was ${JSON.stringify(hadNoProxy)}; mcpscope replaced it with its own UI port so that every host goes through the proxy (use --intercept to decrypt fewer hosts).`,
    );
  const bundle = writeTrustBundle(ca, base);
  const preload = `--import ${JSON.stringify(pathToFileURL(PRELOAD_PATH).href)}`;
  const nodeOptions = base.NODE_OPTIONS ?? '';
  const set: Record<string, string> = {
    HTTP_PROXY: proxyUrl,
    HTTPS_PROXY: proxyUrl,
    http_proxy: proxyUrl,
    https_proxy: proxyUrl,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    NODE_EXTRA_CA_CERTS: nodeExtraCa(ca, base.NODE_EXTRA_CA_CERTS),
    SSL_CERT_FILE: bundle,
    REQUESTS_CA_BUNDLE: bundle,
    CURL_CA_BUNDLE: bundle,
    NODE_USE_ENV_PROXY: '1',
    NODE_OPTIONS: nodeOptions.includes(preload) ? nodeOptions : `${nodeOptions}${nodeOptions ? ' ' : ''}${preload}`,
  };
  return { set, notes };
}

/** `export NAME='value'` lines for a POSIX shell (`eval "$(mcpscope env)"`). */
export function shellExports(set: Record<string, string>): string {
  return Object.entries(set)
    .map(([k, v]) => `export ${k}='${v.replace(/'/g, `'\\''`)}'`)
    .join('\n');
}
