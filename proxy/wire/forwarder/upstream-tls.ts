/**
 * mcpscope checks upstream TLS certificates itself, whatever its environment says. Node's TLS
 * default comes from `NODE_TLS_REJECT_UNAUTHORIZED`: set to 0 in mcpscope's environment, it turned
 * every upstream check off without a word — a self-signed, expired or wrong-host server relayed
 * with a 200, while the client saw a valid mcpscope certificate (issue 26, finding 4), against
 * docs/security.md's "never a silent downgrade". So every upstream TLS connection mcpscope makes
 * (the proxies' undici agents, blind tunnels' upgrades, mcpscope's own sends) passes
 * `VERIFY_UPSTREAM`, and mcpscope says once, on stderr, that it ignores the variable.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

/** Spread into every upstream TLS connection's options: verification on, explicitly. */
export const VERIFY_UPSTREAM = { rejectUnauthorized: true } as const;

/**
 * Trust for upstream TLS with `--upstream-ca` (reverse and forward proxies alike): the system's
 * roots, NODE_EXTRA_CA_CERTS and the given PEM certificates. undefined (none given) keeps Node's
 * defaults, which are the same first two.
 */
export function upstreamTrust(extra: readonly string[] | undefined): { ca: string[] } | undefined {
  if (!extra || extra.length === 0) return undefined;
  const ca = [...rootCertificates];
  const fromEnv = process.env.NODE_EXTRA_CA_CERTS;
  if (fromEnv) {
    try {
      ca.push(readFileSync(fromEnv, 'utf8'));
    } catch {
      /* Node itself warns about an unreadable NODE_EXTRA_CA_CERTS */
    }
  }
  return { ca: [...ca, ...extra] };
}

/** What mcpscope says when its environment turns Node's certificate checks off; undefined when it does not. */
export function ignoredTlsEnvNotice(env: NodeJS.ProcessEnv = process.env): string | undefined {
  // Node's own test: any value but "0" leaves verification on.
  if (env.NODE_TLS_REJECT_UNAUTHORIZED !== '0') return undefined;
  return (
    'mcpscope: NODE_TLS_REJECT_UNAUTHORIZED=0 is set, and mcpscope ignores it for its upstream connections: it still ' +
    'verifies every server’s TLS certificate, and a server it cannot verify gets a 502 that says why. To trust a ' +
    'private or self-signed CA, give its certificate to mcpscope with --upstream-ca <file.pem> or ' +
    'NODE_EXTRA_CA_CERTS=<file.pem>.'
  );
}

let told = false;

/**
 * Writes `ignoredTlsEnvNotice` once per process: called on the main thread (startMcpscope before
 * its proxy thread starts, `mcpscope verify`), never on the proxy thread, which a crash starts again.
 */
export function tellIgnoredTlsEnv(
  env: NodeJS.ProcessEnv = process.env,
  write: (text: string) => void = (t) => process.stderr.write(t),
): void {
  if (told) return;
  const notice = ignoredTlsEnvNotice(env);
  if (notice === undefined) return;
  told = true;
  write(`${notice}\n`);
}
