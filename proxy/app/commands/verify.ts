/**
 * `mcpscope verify FIXTURE --target URL [--transport http|sse] [--json] [--strict] [--timeout MS] [--header K:V] [--ignore PATH]`
 * (or `… -- <command> [args…]` for a stdio server):
 * plays the client side of a recorded session against a live server and reports every difference
 * (see proxy/files/replay/verify.ts). Exit code 0: same answers; 1: differences; 2: usage, fixture or
 * connection problem.
 */
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { FixtureError, loadFixture } from '../../files/import/load-fixture.js';
import { parseIgnorePattern } from '../../core/model/json-diff.js';
import { tellIgnoredTlsEnv } from '../../wire/forwarder/upstream-tls.js';
import { formatVerifyReport, verifyFixture, VerifyConnectionError } from '../../files/replay/verify.js';

const USAGE = `Usage: mcpscope verify <fixture.json> --target <url> [options]
       mcpscope verify <fixture.json> [--json] [--timeout <ms>] -- <command> [args…]   (a stdio server)

Replays the client side of a recorded session against a live MCP server and compares every
response with the recorded one (tools/list schema drift, changed results, new errors, missing
progress), ignoring ids, _meta, session ids and timestamp-looking values. Server→client
requests (sampling, elicitation, roots) are answered as the recorded client answered them,
whichever stream they come on.

Options
  --target <url>          the live server's MCP endpoint (or give a stdio server's command after --)
  --transport <http|sse>  Streamable HTTP or legacy HTTP+SSE (default: as recorded)
  --header <name:value>   extra HTTP header, e.g. "Authorization: Bearer …" (repeatable)
  --upstream-ca <pem>     trust this CA file for an HTTPS target besides the system's and
                          NODE_EXTRA_CA_CERTS (repeatable); the certificate is always checked
  --timeout <ms>          per-request timeout (default 30000)
  --ignore <path>         do not count differences at this path (and below), written as the
                          report prints them: [<call> › ]<path>, e.g.
                          --ignore 'tools/call random_delay › content[0].text'
                          ("›" may be typed ">"; * = any one key, index or name).
                          Repeatable; adds to the fixture's own "verify": { "ignore": [...] }
  --strict                also fail when the live server's messages break the MCP specification
                          (the spec linter's rules, docs/spec-lint.md); without it they are listed
  --json                  print the report as JSON
  -h, --help              this help

Exit status: 0 when every response matches, 1 on differences (or, with --strict, spec violations),
2 on usage or connection errors.
`;

export async function main(argv: string[]): Promise<number> {
  // `-- <command> [args…]`: verify a stdio server; everything after the first `--` is its command line.
  const dashes = argv.indexOf('--');
  const command = dashes >= 0 ? argv.slice(dashes + 1) : undefined;
  const own = dashes >= 0 ? argv.slice(0, dashes) : argv;
  let parsed;
  try {
    parsed = parseArgs({
      args: own,
      allowPositionals: true,
      options: {
        target: { type: 'string' },
        transport: { type: 'string' },
        header: { type: 'string', multiple: true },
        'upstream-ca': { type: 'string', multiple: true },
        timeout: { type: 'string' },
        ignore: { type: 'string', multiple: true },
        json: { type: 'boolean' },
        strict: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`mcpscope verify: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const v = parsed.values;
  if (v.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const usage = (msg: string) => {
    process.stderr.write(`mcpscope verify: ${msg}\n\n${USAGE}`);
    return 2;
  };
  if (parsed.positionals.length !== 1) return usage(parsed.positionals.length === 0 ? 'which fixture?' : 'one fixture at a time.');
  if (command !== undefined && command.length === 0) return usage('after `--`, the command that starts the stdio server.');
  if (command !== undefined && v.target) return usage('--target or `-- <command>`, not both.');
  if (!v.target && !command) return usage('--target <url> (or `-- <command>` for a stdio server) is required.');
  if (command && (v.transport !== undefined || v.header !== undefined || v['upstream-ca'] !== undefined))
    return usage('--transport, --header and --upstream-ca are for HTTP targets.');
  let upstreamCa: string[] | undefined;
  try {
    upstreamCa = v['upstream-ca']?.map((f) => {
      try {
        return readFileSync(f, 'utf8');
      } catch (err) {
        throw new Error(`--upstream-ca ${f}: ${(err as Error).message}`);
      }
    });
  } catch (err) {
    return usage(`${(err as Error).message}.`);
  }
  if (v.transport !== undefined && v.transport !== 'http' && v.transport !== 'sse')
    return usage(`--transport must be http or sse, not ${JSON.stringify(v.transport)}.`);
  const timeoutMs = v.timeout === undefined ? undefined : Number(v.timeout);
  if (timeoutMs !== undefined && (!Number.isFinite(timeoutMs) || timeoutMs <= 0))
    return usage(`--timeout must be a positive number of milliseconds.`);
  for (const pattern of v.ignore ?? []) {
    try {
      parseIgnorePattern(pattern);
    } catch (err) {
      return usage(`--ignore ${(err as Error).message}.`);
    }
  }
  const headers: Record<string, string> = {};
  for (const h of v.header ?? []) {
    const i = h.indexOf(':');
    if (i <= 0) return usage(`--header must look like "Name: value", not ${JSON.stringify(h)}.`);
    headers[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }

  const file = parsed.positionals[0];
  let fixture;
  try {
    fixture = loadFixture(file);
  } catch (err) {
    // One line, never a stack: whatever is wrong with the file, say so.
    process.stderr.write(
      `mcpscope verify: ${err instanceof FixtureError ? err.message : `${file}: mcpscope could not read this fixture (${(err as Error).message})`}\n`,
    );
    return 2;
  }
  // An HTTP target is verified by mcpscope's own fetch, whatever NODE_TLS_REJECT_UNAUTHORIZED says: say so.
  if (!command) tellIgnoredTlsEnv();
  try {
    const report = await verifyFixture(fixture, {
      target: v.target ?? command!.join(' '),
      command: command ? { command: command[0], args: command.slice(1) } : undefined,
      transport: v.transport as 'http' | 'sse' | undefined,
      timeoutMs,
      headers: Object.keys(headers).length > 0 ? headers : undefined,
      upstreamCa,
      ignore: v.ignore,
      strict: v.strict ?? false,
    });
    process.stdout.write(
      v.json ? `${JSON.stringify({ fixture: file, ...report }, null, 2)}\n` : formatVerifyReport(report, basename(file)),
    );
    return report.ok ? 0 : 1;
  } catch (err) {
    if (!(err instanceof VerifyConnectionError)) throw err;
    if (v.json)
      process.stdout.write(
        `${JSON.stringify({ fixture: file, ok: false, target: v.target ?? command!.join(' '), error: err.message }, null, 2)}\n`,
      );
    process.stderr.write(`mcpscope verify: ${err.message}\n`);
    return 2;
  }
}
