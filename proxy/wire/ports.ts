/** mcpscope's default ports, and the one check of a port option, for the CLI and every subcommand. */

/** The UI and API (and where stdio wrappers and `mcpscope run` look for a running mcpscope). */
export const DEFAULT_UI_PORT = 6480;
/** The proxy: the reverse proxy's, or the forward proxy's with --forward. */
export const DEFAULT_PROXY_PORT = 6481;

/** A port option's value as a number (0 = any free port); throws a plain-words Error for anything else. */
export function parsePort(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`${name} must be a port number from 0 to 65535, not ${JSON.stringify(value)}`);
  return n;
}
