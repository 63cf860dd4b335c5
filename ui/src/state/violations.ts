/**
 * Spec violations as the UI sees them: `problem` events with `code: "spec-violation"`,
 * each naming the message that broke a rule (`message`, its seq) and where in it (`path`, a JSON
 * pointer). A violation linked to a message the store holds is an annotation of that message —
 * a "spec" badge on its row, the detail pane's Spec tab — not a timeline row of its own; one that
 * names no message (or one the store does not hold) stays a problem row. The linter's notes
 * (`code: "lint-not-checked"`: what it could not check) annotate their message the same way, with
 * a "not checked" badge of their own; the index holds both, and each reader picks.
 *
 * Pure helpers and the store's index; the one source of truth is the events. The per-session lint
 * report is proxy/core/lint/lint-report.ts, shared with the API's `GET /api/sessions/:id/lint`.
 */
import type { ProblemEvent } from '../../../proxy/core/model/events.js';
import type { Row } from './types.js';

export const SPEC_VIOLATION = 'spec-violation';
/** A linter note: what it could not check in a message (a schema too large or too slow, a pattern RE2 cannot run). */
export const LINT_NOT_CHECKED = 'lint-not-checked';

/** Whether a problem is a spec violation the linter found. */
export function isViolation(p: ProblemEvent): boolean {
  return p.code === SPEC_VIOLATION;
}

/** Whether a problem is a linter note: never the peer's fault, shown beside the violations, never counted with them. */
export function isLintNote(p: ProblemEvent): boolean {
  return p.code === LINT_NOT_CHECKED;
}

/** The message seq a violation (or a linter note) annotates, when it names one. */
export function violationMessage(p: ProblemEvent): number | undefined {
  return (isViolation(p) || isLintNote(p)) && typeof p.message === 'number' && Number.isFinite(p.message) ? p.message : undefined;
}

/** `error` when any of them is at error level (strict mode), else `warn`; undefined for none. */
export function violationLevel(list: readonly ProblemEvent[] | undefined): 'warn' | 'error' | undefined {
  if (!list || list.length === 0) return undefined;
  return list.some((p) => p.level === 'error') ? 'error' : 'warn';
}

/** The distinct rule ids of some violations, in first-seen order. */
export function ruleIds(list: readonly ProblemEvent[]): string[] {
  const out: string[] = [];
  for (const p of list) {
    const rule = p.rule ?? '(unnamed rule)';
    if (!out.includes(rule)) out.push(rule);
  }
  return out;
}

/** Tooltip of a row's "spec" badge: the rules broken, one a line. */
export function violationsTitle(list: readonly ProblemEvent[]): string {
  const rules = ruleIds(list);
  const head = `${list.length} spec violation${list.length === 1 ? '' : 's'}:`;
  return [head, ...rules].join('\n');
}

/** The store's index of violations by message (filled as problems arrive). */
export class ViolationIndex {
  private readonly byMessage = new Map<number, ProblemEvent[]>();

  /** Records a violation on its message; returns whether it was linked (the message is known). */
  link(p: ProblemEvent, hasMessage: (seq: number) => boolean): boolean {
    const m = violationMessage(p);
    if (m === undefined || !hasMessage(m)) return false;
    let list = this.byMessage.get(m);
    if (!list) this.byMessage.set(m, (list = []));
    list.push(p);
    return true;
  }

  of(messageSeq: number): readonly ProblemEvent[] | undefined {
    return this.byMessage.get(messageSeq);
  }

  /** Whether no message has a violation (the common case: nothing to look up per row). */
  get empty(): boolean {
    return this.byMessage.size === 0;
  }

  clear(): void {
    this.byMessage.clear();
  }
}

// ---- spec references and JSON pointers -------------------------------------------------------

/**
 * The specification page a `specRef` names (`2025-06-18 server/tools#calling-tools` →
 * https://modelcontextprotocol.io/specification/2025-06-18/server/tools#calling-tools), or
 * undefined when it is not in that form.
 */
export function specUrl(specRef: string | undefined): string | undefined {
  if (!specRef) return undefined;
  const m = /^(\d{4}-\d{2}-\d{2}|draft)\s+([a-z0-9][a-z0-9/_-]*)(#[a-z0-9_-]+)?$/i.exec(specRef.trim());
  if (!m) return undefined;
  return `https://modelcontextprotocol.io/specification/${m[1]}/${m[2]}${m[3] ?? ''}`;
}

/** The reference tokens of a JSON pointer (`/a/b~1c` → `['a', 'b/c']`); undefined when it is not one. */
export function pointerTokens(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A pointer token escaped (`~` → `~0`, `/` → `~1`). */
export function pointerToken(name: string | number): string {
  return String(name).replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Where a pointer lands in a value: the pointer of the deepest part that exists (`found`), and
 * whether the whole path exists. A member the message lacks (`/result/content` of a result without
 * content) lands on its nearest ancestor, with `missing: true`.
 */
export function resolvePointer(value: unknown, pointer: string): { found: string; missing: boolean } | undefined {
  const tokens = pointerTokens(pointer);
  if (!tokens) return undefined;
  let cur: unknown = value;
  let found = '';
  for (const t of tokens) {
    let next: unknown;
    let has = false;
    if (Array.isArray(cur)) {
      if (/^(0|[1-9]\d*)$/.test(t) && Number(t) < cur.length) {
        next = cur[Number(t)];
        has = true;
      }
    } else if (cur !== null && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, t)) {
      next = (cur as Record<string, unknown>)[t];
      has = true;
    }
    if (!has) return { found, missing: true };
    cur = next;
    found += `/${pointerToken(t)}`;
  }
  return { found, missing: false };
}

/** The violations of every message a row shows (a call: request, progress, cancellation, response), in seq order. */
export function rowViolations(row: Row, of: (messageSeq: number) => readonly ProblemEvent[] | undefined): ProblemEvent[] {
  let seqs: number[];
  switch (row.type) {
    case 'call':
      seqs = [row.request.seq, ...row.progress.map((p) => p.seq)];
      if (row.cancel) seqs.push(row.cancel.seq);
      if (row.response) seqs.push(row.response.seq);
      break;
    case 'notification':
    case 'orphan':
      seqs = [row.message.seq];
      break;
    default:
      return [];
  }
  const out: ProblemEvent[] = [];
  for (const s of seqs) {
    const list = of(s);
    if (list) out.push(...list);
  }
  return out.length > 1 ? out.sort((a, b) => a.seq - b.seq) : out;
}
