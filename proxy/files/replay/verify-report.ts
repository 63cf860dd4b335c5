/**
 * What `mcpscope verify` reports (proxy/files/replay/verify.ts runs it): the options, the report's
 * shape and the report for a terminal (its connection error is core/model/errors.ts's VerifyConnectionError).
 */

import { formatLintNotes, formatViolations, type VerifyViolation } from './verify-lint.js';

export const SERVER_INITIATED = '(server-initiated)';

export interface VerifyOptions {
  /** The live server's MCP URL (or, with `command`, a label for the report). */
  target: string;
  /** Verify a stdio server instead: the command to spawn (its stderr is passed through unless `stderr` says otherwise). */
  command?: { command: string; args?: string[]; cwd?: string; env?: Record<string, string>; stderr?: 'inherit' | 'ignore' | 'pipe' };
  /** `http` (Streamable HTTP) or `sse` (legacy HTTP+SSE); default: what the recording used. */
  transport?: 'http' | 'sse';
  /** Per-request timeout in ms (default 30 000). */
  timeoutMs?: number;
  /** Extra HTTP headers (e.g. Authorization, which fixtures never contain). */
  headers?: Record<string, string>;
  /** PEM certificates trusted for an HTTPS server besides the system's and NODE_EXTRA_CA_CERTS (`--upstream-ca`). */
  upstreamCa?: string[];
  /** Differences not to count (`[<call> › ]<path>`, as printed), on top of the fixture's own `verify.ignore`. */
  ignore?: string[];
  /** Progress lines while running. */
  log?: (line: string) => void;
  /** The live server's spec violations (the linter's, as in the UI) fail the run too. */
  strict?: boolean;
}

export type DifferenceKind =
  'changed' | 'added' | 'removed' | 'new-error' | 'error-gone' | 'missing-progress' | 'progress' | 'server-request' | 'timeout';

export interface VerifyDifference {
  /** The call it is about: `tools/list`, `tools/call echo`, `initialize`. */
  call: string;
  /** Recorded seq of the request. */
  seq?: number;
  kind: DifferenceKind;
  /** Path inside the result (`tools[name=echo].inputSchema.type`), or `error`, `progress`… */
  path: string;
  recorded?: unknown;
  live?: unknown;
  /** One readable line: `tools/list › tools[name=echo].inputSchema.properties.message.type: "string" → "number"`. */
  text: string;
}

export interface VerifyCall {
  seq: number;
  call: string;
  method: string;
  status: 'same' | 'different' | 'skipped';
  /** Why it was skipped. */
  note?: string;
  durationMs: number;
  differences: VerifyDifference[];
  /** Differences an ignore pattern covered (not counted). */
  ignored?: VerifyDifference[];
}

export interface VerifyReport {
  ok: boolean;
  target: string;
  transport: 'http' | 'sse' | 'stdio';
  calls: VerifyCall[];
  differences: VerifyDifference[];
  /** Differences covered by an ignore pattern, not counted in `ok`. */
  ignored: VerifyDifference[];
  /** The ignore patterns in force: the fixture's `verify.ignore`, then `--ignore`. */
  ignore: string[];
  /** The rules of the MCP specification the live server's messages broke (docs/spec-lint.md). */
  violations: VerifyViolation[];
  /** What the linter could not check (docs/spec-lint.md#notes): never a failure. */
  lintNotes?: VerifyViolation[];
  /** Whether they fail the run (`--strict`). */
  strict: boolean;
}

/** A transport wrapper: rewrites the outgoing initialize to the recorded request and taps incoming messages. */

/** The report for a terminal: one line per call, each difference indented under it, a verdict. */
export function formatVerifyReport(report: VerifyReport, fixtureName = 'fixture'): string {
  const lines: string[] = [];
  const compared = report.calls.filter((c) => c.status !== 'skipped' && c.call !== SERVER_INITIATED);
  lines.push(`mcpscope verify: ${fixtureName} (${compared.length} calls) against ${report.target}`);
  for (const c of report.calls) {
    const mark = c.status === 'same' ? '✓' : c.status === 'skipped' ? '-' : '✗';
    const ignoredNote = c.ignored?.length ? `  (${c.ignored.length} ignored)` : '';
    lines.push(`  ${mark} ${c.call}${c.note ? `  (${c.note})` : ''}${ignoredNote}`);
    for (const d of c.differences) lines.push(`      ${d.text}`);
  }
  const differing = report.calls.filter((c) => c.status === 'different').length;
  const total = compared.length + (report.calls.some((c) => c.call === SERVER_INITIATED && c.status === 'different') ? 1 : 0);
  const ignoredCount = report.ignored?.length ?? 0;
  if (ignoredCount > 0) {
    lines.push(
      `  ${ignoredCount} difference${ignoredCount === 1 ? '' : 's'} ignored (${report.ignore.map((p) => JSON.stringify(p)).join(', ')})`,
    );
  }
  const violations = report.violations ?? [];
  lines.push(...formatViolations(violations, report.strict));
  lines.push(...formatLintNotes(report.lintNotes ?? []));
  const failedOnSpec = report.strict && violations.length > 0;
  const specNote = violations.length > 0 ? ` ${violations.length} spec violation${violations.length === 1 ? '' : 's'}.` : '';
  lines.push(
    report.ok
      ? `OK: every response matches the recording.${specNote}`
      : report.differences.length === 0 && failedOnSpec
        ? `FAIL: every response matches the recording, but the server broke the MCP specification ${violations.length} time${violations.length === 1 ? '' : 's'} (--strict).`
        : `FAIL: ${report.differences.length} difference${report.differences.length === 1 ? '' : 's'} in ${differing} of ${total} calls.${specNote}`,
  );
  return `${lines.join('\n')}\n`;
}
