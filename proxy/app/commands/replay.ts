/**
 * `mcpscope replay FIXTURE [--port P] [--host H] [--path /mcp] [--timing recorded|fast|F] [--stdio] [--quiet]`:
 * serves a recorded session as a mock MCP server (see proxy/files/replay/replay-server.ts).
 * HTTP: prints the endpoint URL on stdout (and what it serves on stderr); Ctrl-C stops it.
 * --stdio: speaks newline-delimited JSON-RPC on stdin/stdout (logs on stderr) until stdin ends.
 */
import { parseArgs } from 'node:util';
import { basename } from 'node:path';
import { FixtureError, loadFixture } from '../../files/import/load-fixture.js';
import { buildReplayModel } from '../../files/replay/replay-matching.js';
import { startMockServer, startStdioMock, type MockServer } from '../../files/replay/replay-server.js';
import type { ReplayTiming } from '../../files/replay/replay-session.js';

export const DEFAULT_REPLAY_PORT = 6482;

const USAGE = `Usage: mcpscope replay <fixture.json> [options]

Serves a recorded session (an mcpscope fixture) as a mock MCP server: each request is answered
with the recorded response of the matching recorded request (method + params; ids, progress
tokens and _meta ignored), re-emitting recorded progress, logs and server→client requests.
initialize answers with the protocol version the client asked for when it is an older released
one than the recorded version (negotiated down, said on stderr; the answers stay the recorded
ones), else with the recorded version, as the recorded server would.

Options
  --port <n>       port (default ${DEFAULT_REPLAY_PORT}, any free port when taken; 0 = any free port)
  --host <addr>    listen address (default 127.0.0.1)
  --path <path>    endpoint path (default: the recorded one, e.g. /mcp)
  --timing <t>     when answers and streamed messages go out:
                     recorded  at their recorded offsets from each request (default), so
                               concurrent calls complete in the recorded order and
                               progress keeps its pace
                     fast      everything at once
                     <factor>  the recorded delays times <factor>: 0.5 = twice as fast,
                               2 = half speed
  --speed <x>      older spelling, the inverse factor: --speed 2 = --timing 0.5,
                   --speed 1 = --timing recorded, --speed 0 = --timing fast
  --stdio          speak MCP over stdin/stdout instead of HTTP
  --quiet          no per-request log lines on stderr (a version negotiated down is still said)
  -h, --help       this help
`;

/** `--timing recorded|fast|<factor>`, or the older `--speed <x>` (its inverse: speed 0 = fast). */
export function parseTiming(timing: string | undefined, speed: string | undefined): { timing: ReplayTiming } | { error: string } {
  if (timing !== undefined && speed !== undefined) return { error: '--timing or --speed, not both (--speed is the older spelling).' };
  if (timing !== undefined) {
    if (timing === 'recorded' || timing === 'fast') return { timing };
    const factor = Number(timing);
    if (timing.trim() === '' || !Number.isFinite(factor) || factor < 0)
      return { error: `--timing must be recorded, fast or a factor ≥ 0 (0.5 = twice as fast), not ${JSON.stringify(timing)}` };
    return { timing: factor === 0 ? 'fast' : factor };
  }
  if (speed !== undefined) {
    const n = Number(speed);
    if (speed.trim() === '' || !Number.isFinite(n) || n < 0) return { error: `--speed must be a number ≥ 0, not ${JSON.stringify(speed)}` };
    return { timing: n === 0 ? 'fast' : 1 / n };
  }
  return { timing: 'recorded' };
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        path: { type: 'string' },
        timing: { type: 'string' },
        speed: { type: 'string' },
        stdio: { type: 'boolean' },
        quiet: { type: 'boolean', short: 'q' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`mcpscope replay: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const v = parsed.values;
  if (v.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (parsed.positionals.length !== 1) {
    process.stderr.write(`mcpscope replay: ${parsed.positionals.length === 0 ? 'which fixture?' : 'one fixture at a time.'}\n\n${USAGE}`);
    return 2;
  }
  const file = parsed.positionals[0];
  let port = DEFAULT_REPLAY_PORT;
  if (v.port !== undefined) {
    port = Number(v.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      process.stderr.write(`mcpscope replay: --port must be a port number from 0 to 65535, not ${JSON.stringify(v.port)}\n`);
      return 2;
    }
  }
  const parsedTiming = parseTiming(v.timing, v.speed);
  if ('error' in parsedTiming) {
    process.stderr.write(`mcpscope replay: ${parsedTiming.error}\n`);
    return 2;
  }
  const timing = parsedTiming.timing;
  if (v.path !== undefined && !v.path.startsWith('/')) {
    process.stderr.write(`mcpscope replay: --path must start with "/"\n`);
    return 2;
  }

  let fixture;
  let model;
  try {
    fixture = loadFixture(file);
    model = buildReplayModel(fixture);
  } catch (err) {
    // One line, never a stack: whatever is wrong with the file, say so.
    process.stderr.write(
      `mcpscope replay: ${err instanceof FixtureError ? err.message : `${file}: mcpscope could not read this fixture (${(err as Error).message})`}\n`,
    );
    return 2;
  }
  const log = v.quiet ? undefined : (line: string) => process.stderr.write(`  ${line}\n`);
  // Said even with --quiet: the client is then not served exactly what was recorded.
  const notice = (line: string) => process.stderr.write(`mcpscope replay: ${line}\n`);
  const pace =
    timing === 'recorded' || timing === 1 ? 'recorded timing' : timing === 'fast' ? 'answering at once' : `recorded timing × ${timing}`;
  const summary = `${basename(file)}: ${model.calls.length} recorded requests from ${fixture.session.serverInfo?.name ?? 'an MCP server'} (${fixture.session.transport}), ${pace}`;

  if (v.stdio) {
    process.stderr.write(`mcpscope replay: serving ${summary} on stdio\n`);
    const mock = startStdioMock(fixture, { stdin: process.stdin, stdout: process.stdout, timing, log, notice });
    const stop = () => void mock.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    await mock.done;
    return 0;
  }

  const host = v.host ?? '127.0.0.1';
  let mock: MockServer;
  try {
    mock = await startMockServer(fixture, { port, host, path: v.path, timing, log, notice });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code !== 'EADDRINUSE') throw err;
    if (v.port !== undefined) {
      process.stderr.write(`mcpscope replay: port ${port} is already in use. Choose another with --port, or 0 for any free port.\n`);
      return 2;
    }
    mock = await startMockServer(fixture, { port: 0, host, path: v.path, timing, log, notice });
  }
  process.stderr.write(`mcpscope replay: serving ${summary}\n  Point your MCP client at the URL below. Ctrl-C to stop.\n`);
  process.stdout.write(`${mock.url}\n`);
  return new Promise<number>((resolve) => {
    const stop = () => {
      process.stderr.write('mcpscope replay: stopping\n');
      void mock.close().then(() => resolve(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
