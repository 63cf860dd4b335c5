/**
 * `mcpscope verify FIXTURE --target URL [--transport http|sse] [--json] [--strict] [--timeout MS] [--header K:V] [--ignore PATH]`
 * (or `… -- <command> [args…]` for a stdio server):
 * plays the client side of a recorded session against a live server and reports every difference
 * (see proxy/files/replay/verify.ts). Exit code 0: same answers; 1: differences; 2: usage, fixture or
 * connection problem.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { loadFixture } from '../../files/import/load-fixture.js';
import { FixtureError, VerifyConnectionError } from '../../core/model/errors.js';
import { parseIgnorePattern } from '../../core/model/json-diff.js';
import { tellIgnoredTlsEnv } from '../../wire/forwarder/upstream-tls.js';
import { formatVerifyReport, verifyFixture } from '../../files/replay/verify.js';
import { parseCommand } from '../cli-parse.js';

export async function main(argv: string[]): Promise<number> {
  // `-- <command> [args…]`: verify a stdio server; everything after the first `--` is its command line.
  const dashes = argv.indexOf('--');
  const command = dashes >= 0 ? argv.slice(dashes + 1) : undefined;
  const own = dashes >= 0 ? argv.slice(0, dashes) : argv;
  const parsed = parseCommand('verify', own);
  if (typeof parsed === 'number') return parsed;
  const v = parsed.values;
  const usage = (msg: string) => {
    process.stderr.write(`mcpscope verify: ${msg}\nRun mcpscope verify --help for the options.\n`);
    return 2;
  };
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
  const timeoutMs = v.timeout;
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

  const file = parsed.operand!;
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
      transport: v.transport,
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
