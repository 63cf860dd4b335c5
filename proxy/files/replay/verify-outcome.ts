/**
 * A call's outcome — result or error — recorded and live, and how `mcpscope verify` compares them.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { FixtureMessage } from '../../core/model/fixture-format.js';
import { diffJson, formatDifference, formatPath, formatValue } from '../../core/model/json-diff.js';
import type { DifferenceKind, VerifyDifference } from './verify-report.js';

export interface Outcome {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export function recordedOutcome(m: FixtureMessage | undefined): Outcome | undefined {
  if (!m) return undefined;
  if ('error' in m.message) return { error: m.message.error as Outcome['error'] };
  return { result: m.message.result };
}

export function errorText(e: NonNullable<Outcome['error']>): string {
  return `${e.code} ${JSON.stringify(e.message)}`;
}

/** Differences between two outcomes of the same call. */
export function compareOutcome(call: string, seq: number | undefined, recorded: Outcome, live: Outcome): VerifyDifference[] {
  const out: VerifyDifference[] = [];
  const push = (kind: DifferenceKind, path: string, text: string, r?: unknown, l?: unknown) =>
    out.push({ call, seq, kind, path, recorded: r, live: l, text: `${call} › ${text}` });
  if (recorded.error && live.error) {
    if (
      recorded.error.code !== live.error.code ||
      diffJson(recorded.error.message, live.error.message, { ignoreVolatile: true }).length > 0
    ) {
      push('changed', 'error', `error: ${errorText(recorded.error)} → ${errorText(live.error)}`, recorded.error, live.error);
    }
    return out;
  }
  if (!recorded.error && live.error) {
    push('new-error', 'error', `new error ${errorText(live.error)} (the recording has a result)`, recorded.result, live.error);
    return out;
  }
  if (recorded.error && !live.error) {
    push(
      'error-gone',
      'error',
      `recorded error ${errorText(recorded.error)} is now a result ${formatValue(live.result)}`,
      recorded.error,
      live.result,
    );
    return out;
  }
  for (const d of diffJson(recorded.result, live.result, { ignoreVolatile: true })) {
    out.push({
      call,
      seq,
      kind: d.kind,
      path: formatPath(d.path),
      recorded: d.before,
      live: d.after,
      text: `${call} › ${formatDifference(d)}`,
    });
  }
  return out;
}

export function liveError(err: unknown): Outcome['error'] {
  if (err instanceof McpError) return { code: err.code, message: err.message.replace(/^MCP error -?\d+: /, ''), data: err.data };
  return { code: ErrorCode.InternalError, message: (err as Error)?.message ?? String(err) };
}
