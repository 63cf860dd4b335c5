/** MCP protocol versions (`YYYY-MM-DD`), shared by the recorder, the hints and the linter. Pure: no Node APIs. */

/** The released protocol versions mcpscope knows (the linter's method sets, replay's negotiation), oldest first. */
export const KNOWN_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;

/** The stateless Streamable HTTP revision: no initialize, `_meta` on every request, input_required results. */
export const STATELESS_VERSION = '2026-07-28';

/** `YYYY-MM-DD` versions compare as strings; anything else is not compared (false). */
export function versionAtLeast(version: string | undefined, min: string): boolean {
  return version !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= min;
}
