/**
 * The commands, and the prose of their `--help` pages: what each is for, how it is called, and
 * what it says besides its options. The options themselves, with their help lines, are in the
 * option table (proxy/app/cli-options.ts); proxy/app/cli-help.ts puts the two together, the same
 * way for every command.
 */

/** `main` is `mcpscope [options]`; `wrapper` is `mcpscope [options] [--] <command>`, which has main's page. */
export type CommandName = 'main' | 'wrapper' | 'run' | 'env' | 'ca' | 'open' | 'replay' | 'verify' | 'wrap' | 'unwrap' | 'mcp';
export type Subcommand = Exclude<CommandName, 'main' | 'wrapper'>;

export interface UsageLine {
  line: string;
  /** What it does, beside it. */
  says?: string;
}

export interface CommandPage {
  /** One line: the page's title, and the command's line in the main help. */
  summary: string;
  usage: readonly UsageLine[];
  /** Before the options (preformatted). */
  about?: string;
  /** After the options (preformatted). */
  footer?: string;
  /** The one argument it takes besides its options (open's file, replay's fixture…), as "which file?" names it. */
  operand?: string;
}

export const PAGES: Readonly<Record<Exclude<CommandName, 'wrapper'>, CommandPage>> = {
  main: {
    summary: 'a debug proxy for the Model Context Protocol',
    usage: [
      { line: 'mcpscope', says: 'run the live demo (demo server + demo client + UI)' },
      { line: 'mcpscope --target <mcp-url>', says: "reverse proxy: clients use the proxy's URL instead of the server's" },
      { line: 'mcpscope --forward', says: 'serve a forward proxy (HTTP_PROXY/HTTPS_PROXY) with the UI' },
      {
        line: 'mcpscope [options] [--] <command> [args…]',
        says: "wrap a stdio MCP server: relay its stdin/stdout unchanged and record the traffic in the mcpscope UI running on --ui-port (or serve one there if none is running). The first argument that is not an mcpscope option starts the server's command (`--` is optional, as launchers such as `gemini mcp add` drop it). In a client's config, `mcpscope wrap <config.json>` writes it",
      },
    ],
  },
  run: {
    summary: "run any client with its HTTP(S) traffic through mcpscope's forward proxy",
    usage: [{ line: 'mcpscope run [options] [--] <command> [args…]' }],
    about: `Runs <command> (any MCP client: Claude Code, an SDK script, the Inspector CLI, a Python client)
with its HTTP and HTTPS traffic going through mcpscope's forward proxy. The client keeps the
server's real URL — nothing about the server's identity, OAuth audience included, is rewritten.
HTTPS is decrypted with mcpscope's own CA (\`mcpscope ca\`), which the command is set to trust.
The first argument that is not one of run's options starts the command; \`--\` is optional.

If an mcpscope with a forward proxy (\`mcpscope --forward\`) serves its UI on --ui-port, the
traffic is recorded there; otherwise one is started for the command's lifetime.`,
    footer: `Sets for the command: HTTP_PROXY, HTTPS_PROXY (and lower-case), NO_PROXY (mcpscope's UI port),
NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, NODE_USE_ENV_PROXY=1 and
NODE_OPTIONS=--import <preload> (Node < 24's fetch ignores proxy variables otherwise).
\`mcpscope env\` prints the same variables for a shell.`,
  },
  env: {
    summary: 'print shell exports for clients of a running --forward proxy',
    usage: [{ line: 'mcpscope env [--ui-port <n>]' }],
    about: `Prints shell exports that send a client's HTTP(S) traffic through the mcpscope forward proxy
running with its UI on --ui-port (start one with \`mcpscope --forward\`):

  eval "$(mcpscope env)"`,
    footer:
      'Undo with: unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy NO_PROXY no_proxy NODE_EXTRA_CA_CERTS SSL_CERT_FILE REQUESTS_CA_BUNDLE CURL_CA_BUNDLE NODE_USE_ENV_PROXY NODE_OPTIONS',
  },
  ca: {
    summary: "mcpscope's local CA certificate, and how to trust or remove it",
    usage: [
      { line: 'mcpscope ca', says: 'make the CA if there is none yet, print where it is and how to trust it' },
      { line: 'mcpscope ca --pem', says: 'print only the CA certificate (PEM)' },
      { line: 'mcpscope ca --path', says: 'print only the CA certificate\'s file name (curl --cacert "$(mcpscope ca --path)" …)' },
    ],
    about: "The certificate authority that mcpscope's forward proxy signs with.",
    footer: 'The CA lives in $MCPSCOPE_HOME/ca (default ~/.mcpscope/ca).',
  },
  open: {
    summary: 'browse a saved capture (fixture JSON, NDJSON or HAR) in the mcpscope UI',
    usage: [{ line: 'mcpscope open <file> [options]' }],
    operand: 'file',
    about: `<file> is a fixture (.json), an NDJSON event log (mcpscope --record, or an NDJSON export) or a
HAR file (mcpscope's HAR export, Chrome DevTools, HTTP Toolkit…). Runs until Ctrl-C.`,
  },
  replay: {
    summary: 'serve a recorded session as a mock MCP server',
    usage: [{ line: 'mcpscope replay <fixture.json> [options]' }],
    operand: 'fixture',
    about: `Serves a recorded session (an mcpscope fixture) as a mock MCP server: each request is answered
with the recorded response of the matching recorded request (method + params; ids, progress
tokens and _meta ignored), re-emitting recorded progress, logs and server→client requests.
initialize answers with the protocol version the client asked for when it is an older released
one than the recorded version (negotiated down, said on stderr; the answers stay the recorded
ones), else with the recorded version, as the recorded server would.`,
  },
  verify: {
    summary: 'replay the client side against a live server; exit 1 on differences',
    usage: [
      { line: 'mcpscope verify <fixture.json> --target <url> [options]' },
      { line: 'mcpscope verify <fixture.json> [--json] [--timeout <ms>] -- <command> [args…]', says: 'a stdio server' },
    ],
    operand: 'fixture',
    about: `Replays the client side of a recorded session against a live MCP server and compares every
response with the recorded one (tools/list schema drift, changed results, new errors, missing
progress), ignoring ids, _meta, session ids and timestamp-looking values. Server→client
requests (sampling, elicitation, roots) are answered as the recorded client answered them,
whichever stream they come on.`,
    footer: `Exit status: 0 when every response matches, 1 on differences (or, with --strict, spec violations),
2 on usage or connection errors.`,
  },
  wrap: {
    summary: 'route a Claude Desktop / Cursor / VS Code config through mcpscope',
    usage: [{ line: 'mcpscope wrap <config.json> [--write] [--ui-port <n>] [--port <n>]' }],
    operand: 'config file',
    about: `<config.json> is an MCP client's config: claude_desktop_config.json, .cursor/mcp.json,
.vscode/mcp.json, ~/.claude.json… (see docs/clients.md).`,
    footer: `stdio servers become \`<node> <mcpscope> --ui-port <n> -- <command> <args…>\`, where <node> and
<mcpscope> are absolute paths (the installed mcpscope if it is on PATH, else this checkout's
bin/mcpscope.js), so they start from any directory and without PATH. That command is run once
(--version) first; if it does not work, nothing is written and the exit code is 1. Entries
wrapped earlier another way (\`npx -y mcpscope …\`, an old path) get the new command.
URL servers are pointed at http://127.0.0.1:6481/…, 6482, … (or from --port on) and the
\`mcpscope --target …\` commands to run are printed. Wrapping twice changes nothing the second
time. If you move a proxy to another port by hand later, unwrap still restores its URL.
In Claude Code's ~/.claude.json, the servers of each project (projects[…].mcpServers) are
wrapped too, besides the top-level (user) ones; quit Claude Code first, as it rewrites that file.`,
  },
  unwrap: {
    summary: 'undo mcpscope wrap: restore the config',
    usage: [{ line: 'mcpscope unwrap <config.json> [--write]' }],
    operand: 'config file',
    about: `Entries still as wrap wrote them get their original text back byte for byte (from
<config>.mcpscope.json); stdio entries edited since, or wrapped by hand, are rebuilt from the
command line after \`--\`.`,
  },
  mcp: {
    summary: 'serve the recorded traffic to a coding agent as a stdio MCP server',
    usage: [{ line: 'mcpscope mcp [--ui-port <n>] [--token <t>] [--export-dir <dir>]' }],
    about: `Serves mcpscope's recorded traffic to a coding agent (Claude Code, Cursor…) as an MCP server on
stdin/stdout: sessions, search, calls, exports, faults, breakpoints. It reads the mcpscope
running with its UI on --ui-port.`,
    footer: `Add it to Claude Code:     claude mcp add mcpscope -- mcpscope mcp
  (or, from a clone:      claude mcp add mcpscope -- node /abs/path/to/mcpscope/bin/mcpscope.js mcp)
Cursor (.cursor/mcp.json): { "mcpServers": { "mcpscope": { "command": "mcpscope", "args": ["mcp"] } } }

Tools: list_sessions, search_messages, get_exchange, export_session, add_fault, list_faults,
remove_fault, add_breakpoint, and while breakpoints exist list_paused, resume_paused, remove_breakpoint.
See docs/agent-mcp.md.`,
  },
};

/** Subcommands live in their own modules: `mcpscope <name> …` runs proxy/app/commands/<name>.ts. */
export const SUBCOMMANDS: ReadonlySet<string> = new Set<Subcommand>([
  'run',
  'env',
  'ca',
  'open',
  'replay',
  'verify',
  'wrap',
  'unwrap',
  'mcp',
]);
