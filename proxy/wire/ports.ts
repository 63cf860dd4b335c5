/** mcpscope's default ports, for the CLI and every subcommand (a port option's value is checked by the option table, proxy/app/cli-options.ts). */

/** The UI and API (and where stdio wrappers and `mcpscope run` look for a running mcpscope). */
export const DEFAULT_UI_PORT = 6480;
/** The proxy: the reverse proxy's, or the forward proxy's with --forward. */
export const DEFAULT_PROXY_PORT = 6481;
