/**
 * Every option of every mcpscope command, declared once: its type (and so how its value is
 * checked), its default, the commands that take it and its help line. Everything else is made
 * from this table (proxy/app/cli-parse.ts): node's parseArgs config of each command, the values it
 * gives back (checked and typed), where a stdio wrapper's or `mcpscope run`'s command starts
 * (proxy/app/command-line.ts, with OPTIONS below), WRAPPER_OPTIONS, and each command's `--help`
 * (the pages' prose is in proxy/app/cli-commands.ts).
 *
 * An entry's `in` names the commands that take it; `true` keeps the entry's help and default, a
 * string is that command's own help line, an object may also give its own default and lowest value
 * (`mcpscope wrap --port` starts at 1). `{default}` in a help line reads "default: <its default>".
 * Two entries may share a name when no command takes both (`--path` is replay's endpoint and ca's
 * flag). `wrapper` is `mcpscope [options] [--] <command>`: it parses as `main`, and the options it
 * does not take are refused. Numbers are node's Number() of the text (not empty), refused in words
 * outside their range; a choice is one of its words; `optional` takes a value only when the next
 * argument is not another option (`--log [file]`: parseArgs has no optional values).
 */
import { DEFAULT_PROXY_PORT, DEFAULT_UI_PORT } from '../wire/ports.js';
import type { CommandName } from './cli-commands.js';

export { SUBCOMMANDS } from './cli-commands.js';
export type { CommandName } from './cli-commands.js';

/** `mcpscope replay`'s port when none is given. */
export const DEFAULT_REPLAY_PORT = 6482;

/** What one command says of an option where it is not what the entry says. */
export interface PerCommand {
  help?: string;
  default?: string | number;
  /** The lowest value (a number option). */
  min?: number;
}

interface Declared {
  name: string;
  short?: string;
  in: { readonly [C in CommandName]?: true | string | PerCommand };
  help: string;
  /** What the command does without it, for the help (`{default}`): the parser leaves an option not given undefined. */
  default?: string | number;
}

export type OptionDecl =
  | (Declared & { type: 'boolean' })
  | (Declared & { type: 'string'; value: string; multiple?: boolean })
  | (Declared & {
      type: 'number';
      value: string;
      integer?: boolean;
      /** More than 0 (with `integer`: 1 or more). */
      positive?: boolean;
      min?: number;
      max?: number;
      /** What it is, in an error: "a port number" (default: "a whole number" / "a number"). */
      what?: string;
      /** "milliseconds": "a whole number of milliseconds". */
      unit?: string;
    })
  | (Declared & { type: 'choice'; value: string; choices: readonly string[]; orNumber?: { min: number; what: string } })
  | (Declared & {
      type: 'optional';
      value: string;
      /** What its value is, in an error: "a file name". */
      what: string;
      /** The value when none follows, also written `-`. */
      bare: string;
    });

const PORT = { type: 'number', value: '<n>', integer: true, min: 0, max: 65535, what: 'a port number' } as const;
const PORT_0 = '0 = any free port';

export const OPTION_TABLE = [
  {
    name: 'target',
    type: 'string',
    value: '<url>',
    multiple: true,
    in: { main: true },
    help: 'the MCP server URL (e.g. http://127.0.0.1:3001/mcp or …/sse); the proxy mirrors every path of its origin, so clients use the same path on the proxy. Repeat as --target name=url for several servers: each gets its own proxy port (--port, --port+1, …), all recorded into one UI',
  },
  {
    name: 'target',
    type: 'string',
    value: '<url>',
    in: { verify: true },
    help: "the live server's MCP endpoint (or give a stdio server's command after --)",
  },
  {
    name: 'port',
    ...PORT,
    in: {
      main: true,
      run: { help: 'the forward proxy port when one is started here ({default})', default: 'any free port' },
      replay: { help: `the port ({default}, any free port when taken; ${PORT_0})`, default: DEFAULT_REPLAY_PORT },
      wrap: {
        help: 'the first local proxy port for URL servers ({default}; the next ones follow, skipping ports the config already uses)',
        min: 1,
      },
    },
    help: `proxy port ({default}; ${PORT_0})`,
    default: DEFAULT_PROXY_PORT,
  },
  {
    name: 'forward',
    type: 'boolean',
    in: { main: true },
    help: "serve a forward proxy on --port instead of a reverse proxy: set it as the client's HTTPS_PROXY (see `mcpscope env`), or use `mcpscope run`",
  },
  {
    name: 'intercept',
    type: 'string',
    value: '<host>',
    multiple: true,
    in: { main: true, run: 'decrypt only hosts matching this pattern (repeatable; * wildcards, optional :port); others are tunnelled' },
    help: 'with --forward: decrypt only hosts matching this pattern (repeatable; * wildcards, optional :port); others are tunnelled and only counted',
  },
  {
    name: 'upstream-ca',
    type: 'string',
    value: '<pem>',
    multiple: true,
    in: {
      main: true,
      run: 'trust this CA file for upstream servers too (repeatable)',
      verify:
        "trust this CA file for an HTTPS target besides the system's and NODE_EXTRA_CA_CERTS (repeatable); the certificate is always checked",
    },
    help: "also trust this CA file for HTTPS upstream servers, the --target ones or the forward proxy's (repeatable; with the system's roots and NODE_EXTRA_CA_CERTS)",
  },
  {
    name: 'ui-port',
    ...PORT,
    in: {
      main: true,
      wrapper: true,
      run: 'the UI to record into ({default})',
      open: `the UI port ({default}, or any free port if taken; ${PORT_0})`,
      wrap: { help: 'the UI port the wrapped stdio servers report to ({default})', min: 1 },
      env: 'the UI port of the running forward proxy ({default})',
      mcp: 'the UI port of the mcpscope to read ({default})',
    },
    help: `UI and API port ({default}; ${PORT_0})`,
    default: DEFAULT_UI_PORT,
  },
  {
    name: 'host',
    type: 'string',
    value: '<addr>',
    in: { main: true, open: 'listen address ({default})', replay: 'listen address ({default})' },
    help: 'listen address ({default}; anything else exposes your traffic)',
    default: '127.0.0.1',
  },
  {
    name: 'token',
    type: 'string',
    value: '<t>',
    in: {
      main: true,
      wrapper: true,
      run: { help: 'the UI token when one is started here ({default})', default: '$MCPSCOPE_TOKEN, else random' },
      open: { help: 'the UI/API token ({default})', default: '$MCPSCOPE_TOKEN, else random' },
      mcp: {
        help: "the UI's token ({default}; MCPSCOPE_HOME defaults to ~/.mcpscope)",
        default: '$MCPSCOPE_TOKEN, else the token in $MCPSCOPE_HOME/ui-<port>.json',
      },
    },
    help: "UI/API token ({default}; a wrapper also finds the running UI's token in $MCPSCOPE_HOME/ui-<port>.json, MCPSCOPE_HOME defaulting to ~/.mcpscope)",
    default: '$MCPSCOPE_TOKEN, else random per launch',
  },
  {
    name: 'show-secrets',
    type: 'boolean',
    in: { main: true, wrapper: true },
    help: 'do not redact Authorization, cookies and OAuth tokens in the UI',
  },
  {
    name: 'no-rewrite',
    type: 'boolean',
    in: { main: true },
    help: 'never change a byte: no legacy endpoint, OAuth metadata or Location rewrites (clients of legacy SSE or OAuth servers may then bypass or fail through the proxy)',
  },
  {
    name: 'allow-origin',
    type: 'string',
    value: '<o>',
    multiple: true,
    in: { main: true },
    help: 'accept requests with this Origin besides loopback ones (repeatable)',
  },
  {
    name: 'allow-host',
    type: 'string',
    value: '<h>',
    multiple: true,
    in: { main: true },
    help: 'accept this Host name besides loopback names (repeatable)',
  },
  {
    name: 'hash-session-ids',
    type: 'boolean',
    in: { main: true },
    help: 'show MCP session ids as sha256:<12 hex> in the UI and exports',
  },
  {
    name: 'max-body',
    type: 'number',
    value: '<bytes>',
    integer: true,
    positive: true,
    in: { main: true, wrapper: true },
    help: 'largest body or SSE event parsed in full ({default})',
    default: 16777216,
  },
  {
    name: 'max-events',
    type: 'number',
    value: '<n>',
    integer: true,
    positive: true,
    in: { main: true },
    help: 'events kept in memory before the oldest closed sessions are evicted ({default})',
    default: 500000,
  },
  {
    name: 'max-memory',
    type: 'number',
    value: '<MiB>',
    integer: true,
    positive: true,
    in: { main: true },
    help: 'approximate memory for kept events before eviction ({default})',
    default: 512,
  },
  {
    name: 'record',
    type: 'string',
    value: '<file>',
    in: { main: true },
    help: 'append every event to an NDJSON file as it happens (open it later with `mcpscope open <file>`); created 0600, synced to disk every 250 ms',
  },
  {
    name: 'log',
    type: 'optional',
    value: '[file]',
    what: 'a file name',
    bare: 'stdout',
    in: {
      main: true,
      wrapper: true,
      run: "the annotated log, appended to <file> (0600), when one is started here (a file: stdout is the command's)",
    },
    help: 'print the annotated log — every request, response, SSE event and JSON-RPC message as it happens, with its correlation and plain-language hints, secrets redacted — on stdout (coloured on a terminal; NO_COLOR turns that off), or append it to <file> (0600). A stdio wrapper needs a file: its stdout is the server\'s. --log=<file> for a name starting with "-"',
  },
  {
    name: 'log-format',
    type: 'choice',
    value: '<f>',
    choices: ['text', 'json'],
    in: { main: true, wrapper: true, run: 'the log as text ({default}) or json (one JSON object per line)' },
    help: 'text ({default}) or json (one JSON object per line); alone it means --log',
    default: 'text',
  },
  {
    name: 'grace',
    type: 'number',
    value: '<ms>',
    integer: true,
    min: 0,
    unit: 'milliseconds',
    in: { main: true },
    help: 'on Ctrl+C / SIGTERM, stop accepting connections and give calls in flight this long to finish before exiting ({default}; 0 = cut them at once). GET event streams do not hold it: they end with the last call. A second Ctrl+C / SIGTERM quits at once',
    default: 5000,
  },
  {
    name: 'hold-timeout',
    type: 'number',
    value: '<ms>',
    integer: true,
    positive: true,
    in: { main: true, wrapper: true },
    help: "how long a message held at a breakpoint waits for you before it goes on unchanged ({default}, 5 minutes). Breakpoints are set in the UI's Breakpoints panel or with POST /api/breakpoints",
    default: 300000,
  },
  {
    name: 'lint',
    type: 'choice',
    value: '<mode>',
    choices: ['off', 'warn', 'strict'],
    in: { main: true, wrapper: true, run: 'spec linting when one is started here: warn ({default}), strict or off' },
    help: "check every message against the MCP specification of its session's protocol version (schema, capabilities, lifecycle; docs/spec-lint.md): warn ({default}) marks violations as warnings, strict as errors, off skips it",
    default: 'warn',
  },
  {
    name: 'model-traffic',
    type: 'choice',
    value: '<m>',
    choices: ['parse', 'plain'],
    in: {
      main: true,
      run: "the client's model API calls: parse ({default}; model turns joined to the MCP calls they cause) or plain (recorded as plain HTTP)",
    },
    help: "a client's calls to its model API (Anthropic Messages, OpenAI Chat Completions and Responses, Gemini; found by path and body, any host): parse ({default}) reads each as a model turn — model, tokens, the tools it chose — joined to the MCP calls it caused (docs/agent-view.md); plain records them as plain HTTP",
    default: 'parse',
  },
  {
    name: 'otlp',
    type: 'string',
    value: '<url>',
    in: {
      main: true,
      wrapper: true,
      run: 'when one is started here: export spans and MCP metrics to this OTLP/HTTP collector (also OTEL_EXPORTER_OTLP_ENDPOINT; docs/team-setup.md)',
    },
    help: 'export one OpenTelemetry span per JSON-RPC request, a span per session and the MCP duration metrics to this OTLP/HTTP collector (e.g. http://127.0.0.1:4318; /v1/traces and /v1/metrics are appended). Also on with OTEL_EXPORTER_OTLP_ENDPOINT; OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf, http/json), _HEADERS, OTEL_SERVICE_NAME and OTEL_BSP_* apply. Never slows the traffic: spans that cannot be sent are dropped and counted (/api/stats). See docs/team-setup.md',
  },
  {
    name: 'otlp-bodies',
    type: 'boolean',
    in: { main: true, wrapper: true, run: 'with --otlp: redacted request/response bodies on the spans' },
    help: 'with --otlp: put the (redacted, 8 KiB at most) request and response bodies on the spans',
  },
  // replay
  {
    name: 'path',
    type: 'string',
    value: '<path>',
    in: { replay: true },
    help: 'the endpoint path ({default})',
    default: 'the recorded one, e.g. /mcp',
  },
  {
    name: 'timing',
    type: 'choice',
    value: '<t>',
    choices: ['recorded', 'fast'],
    orNumber: { min: 0, what: 'a factor' },
    in: { replay: true },
    help: 'when answers and streamed messages go out: recorded ({default}) at their recorded offsets from each request, so concurrent calls complete in the recorded order and progress keeps its pace; fast everything at once; a factor, the recorded delays times it: 0.5 = twice as fast, 2 = half speed',
    default: 'recorded',
  },
  {
    name: 'speed',
    type: 'number',
    value: '<x>',
    min: 0,
    in: { replay: true },
    help: 'older spelling, the inverse factor: --speed 2 = --timing 0.5, --speed 1 = --timing recorded, --speed 0 = --timing fast',
  },
  { name: 'stdio', type: 'boolean', in: { replay: true }, help: 'speak MCP over stdin/stdout instead of HTTP' },
  {
    name: 'quiet',
    short: 'q',
    type: 'boolean',
    in: { replay: true },
    help: 'no per-request log lines on stderr (a version negotiated down is still said)',
  },
  // verify
  {
    name: 'transport',
    type: 'choice',
    value: '<t>',
    choices: ['http', 'sse'],
    in: { verify: true },
    help: 'Streamable HTTP (http) or legacy HTTP+SSE (sse) ({default})',
    default: 'as recorded',
  },
  {
    name: 'header',
    type: 'string',
    value: '<name:value>',
    multiple: true,
    in: { verify: true },
    help: 'an extra HTTP header, e.g. "Authorization: Bearer …" (repeatable)',
  },
  {
    name: 'timeout',
    type: 'number',
    value: '<ms>',
    positive: true,
    unit: 'milliseconds',
    in: { verify: true },
    help: 'per-request timeout ({default})',
    default: 30000,
  },
  {
    name: 'ignore',
    type: 'string',
    value: '<path>',
    multiple: true,
    in: { verify: true },
    help: 'do not count differences at this path (and below), written as the report prints them: [<call> › ]<path>, e.g. --ignore \'tools/call random_delay › content[0].text\' ("›" may be typed ">"; * = any one key, index or name). Repeatable; adds to the fixture\'s own "verify": { "ignore": [...] }',
  },
  {
    name: 'strict',
    type: 'boolean',
    in: { verify: true },
    help: "also fail when the live server's messages break the MCP specification (the spec linter's rules, docs/spec-lint.md); without it they are listed",
  },
  { name: 'json', type: 'boolean', in: { verify: true }, help: 'print the report as JSON' },
  // wrap, unwrap
  {
    name: 'write',
    type: 'boolean',
    in: {
      wrap: 'back the file up to <config>.bak-<yyyymmdd-hhmmss>, then replace it; what changed is recorded in <config>.mcpscope.json for `mcpscope unwrap` (without --write the new config is printed on stdout and nothing is written)',
      unwrap: true,
    },
    help: 'back the file up to <config>.bak-<yyyymmdd-hhmmss>, then replace it (and update or remove <config>.mcpscope.json); without it the restored config is printed on stdout',
  },
  // ca
  { name: 'pem', type: 'boolean', in: { ca: true }, help: 'print only the CA certificate (PEM)' },
  { name: 'path', type: 'boolean', in: { ca: true }, help: "print only the CA certificate's file name" },
  // mcp
  {
    name: 'export-dir',
    type: 'string',
    value: '<dir>',
    in: { mcp: true },
    help: 'where export_session writes, replacing only files it wrote there itself ({default}, created 0700)',
    default: '$MCPSCOPE_HOME/exports',
  },
  // every command
  {
    name: 'help',
    short: 'h',
    type: 'boolean',
    in: {
      main: "this help (also `mcpscope help`; `mcpscope help <subcommand>` for one's own)",
      wrapper: true,
      run: true,
      env: true,
      ca: true,
      open: true,
      replay: true,
      verify: true,
      wrap: true,
      unwrap: true,
      mcp: true,
    },
    help: 'this help (also `mcpscope help <command>`)',
  },
  { name: 'version', short: 'v', type: 'boolean', in: { main: true, wrapper: true }, help: 'print the version' },
] as const satisfies readonly OptionDecl[];

type Entry = (typeof OPTION_TABLE)[number];
type TakenBy<C extends CommandName> = Extract<Entry, { in: { [K in C]: unknown } }>;
type ValueOf<E> = E extends { type: 'boolean' }
  ? boolean
  : E extends { type: 'number' }
    ? number
    : E extends { type: 'choice'; choices: readonly (infer W)[] }
      ? W | (E extends { orNumber: object } ? number : never)
      : E extends { multiple: true }
        ? string[]
        : string;

/** A command's options as the parser gives them back: checked, typed, undefined when not given. */
export type Values<C extends CommandName> = { [E in TakenBy<C> as E['name']]?: ValueOf<E> };

/** The options `command` takes, in the table's order. */
export function optionsOf(command: CommandName): OptionDecl[] {
  return (OPTION_TABLE as readonly OptionDecl[]).filter((o) => o.in[command] !== undefined);
}

/** How a reader of command lines sees an option: with a value, none, or one only when the next argument is not an option. */
export interface OptionShape {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  optionalValue?: boolean;
}

/** `command`'s options as proxy/app/command-line.ts reads them (where its own arguments end). */
export function shapesOf(command: CommandName): Record<string, OptionShape> {
  const shapes: Record<string, OptionShape> = {};
  for (const o of optionsOf(command)) {
    shapes[o.name] = {
      type: o.type === 'boolean' ? 'boolean' : 'string',
      ...(o.short ? { short: o.short } : {}),
      ...(o.type === 'string' && o.multiple ? { multiple: true } : {}),
      ...(o.type === 'optional' ? { optionalValue: true } : {}),
    };
  }
  return shapes;
}

/** The main command's options, as the wrapper's command line and `mcpscope wrap`'s recognition of a wrapped entry read them. */
export const OPTIONS = shapesOf('main');

/** Options that make sense with `-- <command>` (the rest belong to the HTTP proxy). */
export const WRAPPER_OPTIONS: ReadonlySet<string> = new Set(optionsOf('wrapper').map((o) => o.name));
