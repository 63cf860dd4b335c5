/**
 * `mcpscope ca [--pem | --path]`: makes the local CA of forward mode if there is none yet, and
 * says where it is and how to trust it — and to stop trusting it — in each kind of client.
 * `--pem` prints only the certificate, `--path` only its file name (for scripts:
 * `curl --cacert "$(mcpscope ca --path)" …`).
 */
import { X509Certificate } from 'node:crypto';
import { loadOrCreateCa, writeTrustBundle, type LocalCa } from '../../wire/forward-proxy/ca.js';
import { parseCommand } from '../cli-parse.js';

/** A path as one shell word: as it is when it is plain, else in single quotes. */
function sh(text: string): string {
  return /^[\w@%+=:,./~-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function guide(ca: LocalCa, bundlePath: string): string {
  const cert = new X509Certificate(ca.certPem);
  const name = /CN=([^\n]+)/.exec(cert.subject)?.[1] ?? 'mcpscope local CA';
  const sha1 = cert.fingerprint.replace(/:/g, '');
  const p = sh(ca.certPath);
  return `${ca.certPath}

${ca.created ? 'A new CA was made just now.' : 'This CA was made earlier and is reused.'}

What it is
  Your own certificate authority, "${name}", made on this machine for you alone.
  mcpscope's forward proxy uses it to sign a certificate for each HTTPS host a client talks to,
  so that it can show you the traffic. Its private key is ${ca.keyPath}, readable only by you.
  Never share that key or copy it elsewhere: whoever has it can impersonate any website to
  the clients that trust this CA.
  Valid until ${cert.validTo}. SHA-256 fingerprint ${cert.fingerprint256}.

The easy way
  mcpscope run -- <command>   trusts the CA for that command only, nothing else changes.

Trusting it by hand, one client at a time
  Node.js                 NODE_EXTRA_CA_CERTS=${p} node …
  Python httpx/requests   SSL_CERT_FILE=${sh(bundlePath)} REQUESTS_CA_BUNDLE=${sh(bundlePath)} python …
                          (these replace the whole trust store, so the bundle holds the usual public
                          roots and this CA; run mcpscope ca again to refresh it)
  curl                    curl --cacert ${p} …

Trusting it for the whole system (every program of every user; do it only if you need it)
  Debian/Ubuntu   sudo cp ${p} /usr/local/share/ca-certificates/mcpscope.crt && sudo update-ca-certificates
  macOS           security add-trusted-cert -r trustRoot -k ~/Library/Keychains/login.keychain-db ${p}

Removing it again
  Environment variables and --cacert: stop setting them; nothing else was changed.
  Debian/Ubuntu   sudo rm /usr/local/share/ca-certificates/mcpscope.crt && sudo update-ca-certificates --fresh
  macOS           security remove-trusted-cert ${p} && security delete-certificate -Z ${sha1} ~/Library/Keychains/login.keychain-db
  A new CA        remove the old one from wherever you trusted it, then delete ${sh(ca.dir)};
                  mcpscope makes a new CA the next time it needs one.
`;
}

export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommand('ca', argv);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  if (values.pem && values.path) {
    process.stderr.write('mcpscope ca: --pem or --path, not both.\n');
    return 2;
  }

  let ca: LocalCa;
  try {
    ca = await loadOrCreateCa({ warn: (text) => process.stderr.write(`mcpscope ca: warning: ${text}\n`) });
  } catch (err) {
    process.stderr.write(`mcpscope ca: ${(err as Error).message}\n`);
    return 1;
  }
  if (values.pem) process.stdout.write(ca.certPem);
  else if (values.path) process.stdout.write(`${ca.certPath}\n`);
  else process.stdout.write(guide(ca, writeTrustBundle(ca)));
  return 0;
}
