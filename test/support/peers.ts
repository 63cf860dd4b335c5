/**
 * Real MCP peers for end-to-end tests: the reference "everything" server
 * (@modelcontextprotocol/server-everything) as a child process on an OS-chosen loopback port,
 * and the MCP Inspector's CLI mode (@modelcontextprotocol/inspector-cli) as a one-shot client.
 *
 * No fixed ports and no sleeps: the server child is started with PORT=0 and a preload
 * (listen-reporter.mjs) that prints `MCPSCOPE_LISTENING <port>` on stderr once it listens, and
 * pins it to 127.0.0.1; the helper waits for that line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RunningPeer {
  /** Streamable HTTP: `http://127.0.0.1:<port>/mcp`; legacy SSE: `http://127.0.0.1:<port>/sse`. */
  url: string;
  /** Kills the child (SIGTERM, then SIGKILL after a grace period) and waits for it to exit. */
  close(): Promise<void>;
  /** Everything the child wrote to stderr so far (bounded to the last 256 KiB). */
  stderr(): string;
  /** Everything the child wrote to stdout so far (bounded to the last 256 KiB). */
  stdout(): string;
}

export interface InspectorCliArgs {
  url: string;
  transport: 'http' | 'sse';
  /** e.g. `tools/list`, `tools/call`, `resources/list`, `prompts/list`. */
  method: string;
  toolName?: string;
  /** `--tool-arg key=value`; the CLI JSON-parses each value, so `"3"` arrives as the number 3. */
  toolArgs?: Record<string, string>;
  /** Extra raw CLI arguments, appended last (e.g. `['--uri', 'demo://x']`). */
  extraArgs?: string[];
  /** Kill the CLI after this many milliseconds (default 20 000). */
  timeoutMs?: number;
}

export interface InspectorCliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, when it is JSON. */
  json?: unknown;
}

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/** Path of the server-everything entry script (`node <it> stdio|sse|streamableHttp`). */
export const everythingEntry: string = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** Root directory of the installed inspector-cli package. */
const inspectorCliRoot = dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json'));
/** Its bin `mcp-inspector-cli` (the launcher; with `--cli` it runs build/index.js, the CLI mode). */
export const inspectorCliBin: string = join(inspectorCliRoot, 'build', 'cli.js');

/** The preload that reports the listening port. */
export const listenReporter: string = join(here, 'listen-reporter.mjs');

const OUTPUT_LIMIT = 256 * 1024;
const LISTENING_LINE = /^MCPSCOPE_LISTENING (\d+)$/m;

function collect(stream: NodeJS.ReadableStream | null): () => string {
  let text = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    text += chunk;
    if (text.length > OUTPUT_LIMIT) text = text.slice(-OUTPUT_LIMIT);
  });
  return () => text;
}

function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function killChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = waitForExit(child);
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const escalate = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, graceMs);
  });
  await Promise.race([exited, escalate]);
  clearTimeout(timer);
  await exited;
}

/**
 * Spawns server-everything in `streamableHttp` (url …/mcp) or `sse` (url …/sse, messages are
 * POSTed to /message?sessionId=…) mode on an OS-chosen 127.0.0.1 port.
 */
export async function startEverythingServer(mode: 'streamableHttp' | 'sse', options: { timeoutMs?: number } = {}): Promise<RunningPeer> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const child = spawn(process.execPath, ['--import', listenReporter, everythingEntry, mode], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  // Should the test process end without close() (a crash, a killed worker), take the child along.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));

  const port = await new Promise<number>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const cleanup = () => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    const onData = () => {
      const match = LISTENING_LINE.exec(stderr());
      if (match) {
        cleanup();
        resolve(Number(match[1]));
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      cleanup();
      reject(
        new Error(
          `server-everything (${mode}) exited before listening (code ${code}, signal ${signal}).\nstderr:\n${stderr()}\nstdout:\n${stdout()}`,
        ),
      );
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new Error(`could not spawn server-everything (${mode}): ${error.message}`));
    };
    timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(
          `server-everything (${mode}) did not report a listening port within ${timeoutMs} ms.\nstderr:\n${stderr()}\nstdout:\n${stdout()}`,
        ),
      );
    }, timeoutMs);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
    onData(); // in case the line arrived before the listener
  }).catch(async (error: unknown) => {
    await killChild(child);
    throw error;
  });

  const path = mode === 'sse' ? '/sse' : '/mcp';
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: () => (closing ??= killChild(child)),
    stderr,
    stdout,
  };
}

/**
 * Runs the MCP Inspector CLI (`mcp-inspector-cli --cli <url> --transport http|sse --method …`)
 * and returns its exit code, output, and stdout parsed as JSON.
 *
 * Quirk: inspector-cli 1.0.3's build/index.js checks `fs.existsSync('../package.json')` relative to
 * the *working directory* but imports it relative to the module, falling back to a path that does
 * not exist; so it only runs from a directory whose parent holds a package.json. It is therefore
 * started with cwd = its own build/ directory.
 */
export async function runInspectorCli(args: InspectorCliArgs): Promise<InspectorCliResult> {
  const argv = [inspectorCliBin, '--cli', args.url, '--transport', args.transport, '--method', args.method];
  if (args.toolName !== undefined) argv.push('--tool-name', args.toolName);
  for (const [key, value] of Object.entries(args.toolArgs ?? {})) argv.push('--tool-arg', `${key}=${value}`);
  argv.push(...(args.extraArgs ?? []));

  const child = spawn(process.execPath, argv, {
    cwd: join(inspectorCliRoot, 'build'),
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group: the launcher spawns `node build/index.js`; a timeout kills both.
    detached: true,
  });
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  const timeoutMs = args.timeoutMs ?? 20_000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }, timeoutMs);

  const code = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    // 'close' (not 'exit'): all output has been read by then.
    child.once('close', (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1)));
  }).finally(() => clearTimeout(timer));

  const out = stdout();
  const err = timedOut ? `${stderr()}\n[mcpscope test] inspector CLI killed after ${timeoutMs} ms` : stderr();
  let json: unknown;
  try {
    json = out.trim() === '' ? undefined : JSON.parse(out);
  } catch {
    json = undefined;
  }
  return { code, stdout: out, stderr: err, json };
}
