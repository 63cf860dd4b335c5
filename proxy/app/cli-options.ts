/**
 * The main command's option table (node's parseArgs config) and its subcommands: shared by the
 * command (proxy/cli.ts) and whatever must read a command line the way it does — where a wrapped
 * server's command starts (proxy/command-line.ts), a config entry already wrapped
 * (proxy/app/commands/client-config.ts).
 */
/** Subcommands live in their own modules: `mcpscope <name> …` runs proxy/commands/<name>.ts. */
export const SUBCOMMANDS = new Set(['open', 'replay', 'verify', 'wrap', 'unwrap', 'run', 'env', 'ca', 'mcp']);

export const OPTIONS = {
  target: { type: 'string', multiple: true },
  forward: { type: 'boolean' },
  intercept: { type: 'string', multiple: true },
  'upstream-ca': { type: 'string', multiple: true },
  port: { type: 'string' },
  'ui-port': { type: 'string' },
  host: { type: 'string' },
  token: { type: 'string' },
  'show-secrets': { type: 'boolean' },
  'no-rewrite': { type: 'boolean' },
  'allow-origin': { type: 'string', multiple: true },
  'allow-host': { type: 'string', multiple: true },
  'hash-session-ids': { type: 'boolean' },
  'max-body': { type: 'string' },
  'max-events': { type: 'string' },
  'max-memory': { type: 'string' },
  record: { type: 'string' },
  'log-format': { type: 'string' },
  grace: { type: 'string' },
  'hold-timeout': { type: 'string' },
  lint: { type: 'string' },
  'model-traffic': { type: 'string' },
  otlp: { type: 'string' },
  'otlp-bodies': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** Options that make sense with `-- <command>` (the rest belong to the HTTP proxy). */
export const WRAPPER_OPTIONS = new Set([
  'ui-port',
  'token',
  'show-secrets',
  'max-body',
  'hold-timeout',
  'lint',
  'log-format',
  'otlp',
  'otlp-bodies',
  'help',
  'version',
]);
