/**
 * `mcpscope replay FIXTURE [--port P] [--host H] [--path /mcp] [--timing recorded|fast|F] [--stdio] [--quiet]`:
 * serves a recorded session as a mock MCP server (see proxy/files/replay/replay-server.ts).
 * HTTP: prints the endpoint URL on stdout (and what it serves on stderr); Ctrl-C stops it.
 * --stdio: speaks newline-delimited JSON-RPC on stdin/stdout (logs on stderr) until stdin ends.
 */
import { basename } from 'node:path';
import { loadFixture } from '../../files/import/load-fixture.js';
import { FixtureError } from '../../core/model/errors.js';
import { buildReplayModel } from '../../files/replay/replay-matching.js';
import { startMockServer, startStdioMock, type MockServer } from '../../files/replay/replay-server.js';
import type { ReplayTiming } from '../../files/replay/replay-session.js';
import { DEFAULT_REPLAY_PORT, type Values } from '../cli-options.js';
import { parseCommand } from '../cli-parse.js';

export { DEFAULT_REPLAY_PORT };

/** `--timing recorded|fast|<factor>`, or the older `--speed <x>` (its inverse: speed 0 = fast), as the option table has checked them. */
export function parseTiming(timing: Values<'replay'>['timing'], speed: number | undefined): { timing: ReplayTiming } | { error: string } {
  if (timing !== undefined && speed !== undefined) return { error: '--timing or --speed, not both (--speed is the older spelling).' };
  if (timing !== undefined) return { timing: timing === 0 ? 'fast' : timing };
  if (speed !== undefined) return { timing: speed === 0 ? 'fast' : 1 / speed };
  return { timing: 'recorded' };
}

export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommand('replay', argv);
  if (typeof parsed === 'number') return parsed;
  const v = parsed.values;
  const file = parsed.operand!;
  const port = v.port ?? DEFAULT_REPLAY_PORT;
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
