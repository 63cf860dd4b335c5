/**
 * What `mcpscope mcp`'s tools hand an agent: a compact text it can read at a glance (`content`)
 * and the same facts as JSON (`structuredContent`). Everything goes through the redactor first
 * (credentials by name and by format, and the UI's token), and every text is bounded (32 KiB) with
 * a note saying how to get the rest. What came from the wire is only ever inside the captured-
 * traffic frame of agent-frame.ts, escaped; mcpscope's own words are outside it.
 */
import type { ExchangeInfo, Hint, MessageEvent, ProblemEvent, SessionInfo } from '../../core/model/events.js';
import type { CallView } from '../../recorder/store/call-view.js';
import type { SearchHit, SearchResult } from '../../recorder/store/search.js';
import type { Redactor } from '../../recorder/redact/redact.js';
import { clip, plural } from '../../core/annotate/hint-text.js';
import { formatClock, formatMs } from '../../core/model/units.js';
import { boundedJsonText } from '../../core/parse/json-depth.js';
import { agentText } from './agent-frame.js';

/** Largest text handed to an agent in one result. */
export const MAX_RESULT_TEXT = 32 * 1024;
/** Largest payload (JSON text) of one message shown in a call view. */
const MAX_PAYLOAD_TEXT = 6 * 1024;

export interface ToolOutput {
  text: string;
  structured: Record<string, unknown>;
}

/** Cuts `text` to `max` characters at a line end when it can, saying so and what to do instead. */
export function boundText(text: string, max = MAX_RESULT_TEXT, hint = 'narrow the query or lower limit'): string {
  if (text.length <= max) return text;
  const note = `\n… cut: ${text.length - max} more characters (${hint}).`;
  let cut = text.slice(0, max - note.length);
  const nl = cut.lastIndexOf('\n');
  if (nl > cut.length * 0.75) cut = cut.slice(0, nl);
  return cut + note;
}

/** `s` cut to `n` characters, its whitespace kept (JSON text, raw bytes). */
function cut(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

function iso(ts: number | undefined): string | undefined {
  if (ts === undefined || !Number.isFinite(ts)) return undefined;
  try {
    return new Date(ts).toISOString();
  } catch {
    return undefined;
  }
}

/** A JSON value's text, cut to `max` characters; `{ text, cut }`. */
export function jsonPreview(value: unknown, max = MAX_PAYLOAD_TEXT): { text: string; cut: boolean } {
  // Only the first `max` characters are written, however large the value (core/parse/json-depth.ts).
  const { text, total } = boundedJsonText(value, max);
  return total > max ? { text: `${text.slice(0, max - 1)}…`, cut: true } : { text: total === 0 ? 'undefined' : text, cut: false };
}

// ─── sessions ────────────────────────────────────────────────────────────────────────────────────

export interface SessionSummary {
  id: string;
  status: 'open' | 'closed';
  transport: string;
  target: string;
  targetName?: string;
  client?: string;
  server?: string;
  protocolVersion?: string;
  startedAt?: string;
  endedAt?: string;
  closeReason?: string;
  counts: SessionInfo['counts'];
}

const peer = (p: SessionInfo['clientInfo']) => (p ? `${p.name}${p.version ? ` ${p.version}` : ''}` : undefined);

export function sessionSummary(s: SessionInfo): SessionSummary {
  const out: SessionSummary = { id: s.id, status: s.status, transport: s.transport, target: s.target, counts: s.counts };
  if (s.targetName !== undefined) out.targetName = s.targetName;
  const c = peer(s.clientInfo);
  const v = peer(s.serverInfo);
  if (c) out.client = c;
  if (v) out.server = v;
  if (s.protocolVersion) out.protocolVersion = s.protocolVersion;
  const started = iso(s.startedAt);
  if (started) out.startedAt = started;
  const ended = iso(s.endedAt);
  if (ended) out.endedAt = ended;
  if (s.closeReason) out.closeReason = s.closeReason;
  return out;
}

export function sessionLine(s: SessionSummary): string {
  const n = s.counts;
  const who = s.client || s.server ? ` — ${s.client ?? '?'} → ${s.server ?? '?'}` : '';
  const counts =
    s.transport === 'http'
      ? plural(n.exchanges, 'HTTP exchange')
      : [
          plural(n.messages, 'message'),
          plural(n.requests, 'request'),
          ...(n.pending > 0 ? [`${n.pending} pending`] : []),
          // Answered by HTTP alone (a 4xx/5xx, no JSON-RPC answer): proxy/core/model/call-state.ts.
          ...(n.failed ? [`${n.failed} failed`] : []),
          plural(n.errors, 'error'),
          ...(n.violations ? [plural(n.violations, 'spec violation')] : []),
        ].join(', ');
  return `${s.id} ${s.status}${s.closeReason ? ` (${s.closeReason})` : ''} ${s.transport}${s.targetName ? ` [${s.targetName}]` : ''} ${cut(s.target, 160)}${who}${s.protocolVersion ? ` (${s.protocolVersion})` : ''}; ${counts}${s.startedAt ? `; started ${s.startedAt}` : ''}`;
}

export function formatSessions(sessions: readonly SessionInfo[], redactor: Redactor, limit = 100): ToolOutput {
  const all = sessions.map((s) => sessionSummary(redactor.json(s)));
  // Newest first: an agent wants the session that is running now.
  all.reverse();
  const shown = all.slice(0, limit);
  const head =
    sessions.length === 0
      ? 'No sessions recorded yet: no client has talked to a server through this mcpscope since it started (or since the capture was cleared).'
      : `${plural(sessions.length, 'session')}, newest first${shown.length < all.length ? ` (${shown.length} shown)` : ''}:`;
  return {
    text: agentText([head], shown.map(sessionLine), [], MAX_RESULT_TEXT, 'ask for fewer sessions with limit'),
    structured: { sessions: shown, total: all.length },
  };
}

// ─── search ──────────────────────────────────────────────────────────────────────────────────────

function hitLines(h: SearchHit): string[] {
  const when = formatClock(h.ts, true);
  return [`#${h.seq} ${when} ${h.session ?? '-'} ${h.summary}`, ...(h.preview ? [`    ${h.preview}`] : [])];
}

export function formatSearch(result: SearchResult, redactor: Redactor): ToolOutput {
  const r = redactor.json(result);
  const q = r.query;
  const head =
    r.hits.length === 0
      ? 'No matching messages.'
      : `${plural(r.hits.length, 'match', 'matches')}, ${q.order === 'oldest' ? 'oldest' : 'newest'} first${r.more ? ` (more: page on with ${q.order === 'oldest' ? `since=${r.hits[r.hits.length - 1].seq}` : `before=${r.hits[r.hits.length - 1].seq}`})` : ''}. get_exchange with a #seq shows the whole call:`;
  return {
    text: agentText(
      [head],
      r.hits.flatMap(hitLines),
      [`(store at seq ${r.lastSeq}: since=${r.lastSeq} finds only what comes next)`],
      MAX_RESULT_TEXT,
      'lower limit or narrow the search',
    ),
    structured: { hits: r.hits, more: r.more, lastSeq: r.lastSeq },
  };
}

// ─── one call ────────────────────────────────────────────────────────────────────────────────────

export interface CompactMessage {
  seq: number;
  ts: string | undefined;
  dir: string;
  kind: string;
  method?: string;
  name?: string;
  id?: unknown;
  exchange?: string;
  latencyMs?: number;
  error?: { code: number; message: string; meaning?: string };
  isError?: boolean;
  progress?: MessageEvent['progress'];
  hints?: Hint[];
  /** The message's JSON text (redacted), cut to 6 KiB. */
  json: string;
  jsonCut?: boolean;
}

export function compactMessage(m: MessageEvent, maxJson = MAX_PAYLOAD_TEXT): CompactMessage {
  const p = jsonPreview(m.jsonrpc, maxJson);
  const out: CompactMessage = { seq: m.seq, ts: iso(m.ts), dir: m.dir, kind: m.kind, json: p.text };
  if (p.cut || m.truncated || m.elided) out.jsonCut = true;
  if (m.method !== undefined) out.method = m.method;
  if (m.name !== undefined) out.name = m.name;
  if (m.id !== undefined) out.id = m.id;
  if (m.exchangeId !== undefined) out.exchange = m.exchangeId;
  if (m.latencyMs !== undefined) out.latencyMs = m.latencyMs;
  if (m.error) out.error = m.error;
  if (m.isError) out.isError = true;
  if (m.progress) out.progress = m.progress;
  if (m.hints.length > 0) out.hints = m.hints;
  return out;
}

export interface CompactExchange {
  id: string;
  method: string;
  url: string;
  status?: number;
  carrier?: string;
  responseType?: string;
  startedAt?: string;
  /** Time to the response head. */
  headMs?: number;
  durationMs?: number;
  requestBytes: number;
  responseBytes: number;
  aborted?: string;
  error?: string;
  /** A body that carried no JSON-RPC (an HTML error page, "Accepted", an injected fault's body): its start, redacted. */
  requestPreview?: string;
  responsePreview?: string;
  /** The headers as recorded, redacted again. */
  requestHeaders?: Record<string, string | string[]>;
  responseHeaders?: Record<string, string | string[]>;
  hints?: Hint[];
}

function compactExchange(x: ExchangeInfo, redactor: Redactor): CompactExchange {
  const out: CompactExchange = { id: x.id, method: x.method, url: x.url, requestBytes: x.requestBytes, responseBytes: x.responseBytes };
  if (x.status !== undefined) out.status = x.status;
  if (x.carrier) out.carrier = x.carrier;
  if (x.responseType) out.responseType = x.responseType;
  out.startedAt = iso(x.startedAt);
  const ms = (t: number) => Math.round((t - x.startedAt) * 10) / 10;
  if (x.respondedAt !== undefined) out.headMs = ms(x.respondedAt);
  if (x.endedAt !== undefined) out.durationMs = ms(x.endedAt);
  if (x.aborted) out.aborted = x.aborted;
  if (x.error) out.error = x.error;
  if (x.requestPreview) out.requestPreview = cut(x.requestPreview, 1024);
  if (x.responsePreview) out.responsePreview = cut(x.responsePreview, 1024);
  out.requestHeaders = redactor.headers(x.requestHeaders);
  if (x.responseHeaders) out.responseHeaders = redactor.headers(x.responseHeaders);
  if (x.hints.length > 0) out.hints = x.hints;
  return out;
}

function compactProblem(p: ProblemEvent): Record<string, unknown> {
  const out: Record<string, unknown> = { seq: p.seq, level: p.level, code: p.code, text: p.text };
  if (p.raw !== undefined) out.raw = cut(p.raw, 512);
  for (const k of ['rule', 'specRef', 'message', 'path', 'expected'] as const) if (p[k] !== undefined) out[k] = p[k];
  return out;
}

function hintLines(hints: readonly Hint[] | undefined, indent: string): string[] {
  return (hints ?? []).map((h) => `${indent}${h.level}: ${h.text} [${h.code}]`);
}

function msgHead(m: CompactMessage): string {
  return `#${m.seq} ${m.dir} ${m.kind}${m.method ? ` ${m.method}` : ''}${m.name ? ` ${JSON.stringify(m.name)}` : ''}${m.id !== undefined ? ` id=${JSON.stringify(m.id)}` : ''}${m.latencyMs !== undefined ? ` in ${formatMs(m.latencyMs)}` : ''}${m.exchange ? ` (${m.exchange})` : ''}`;
}

export function formatCall(view: CallView, redactor: Redactor): ToolOutput {
  const v = redactor.json(view);
  const request = compactMessage(v.request);
  const response = v.response ? compactMessage(v.response) : undefined;
  const progress = v.progress.map((m) => compactMessage(m, 600));
  const cancellation = v.cancellation.map((m) => compactMessage(m, 600));
  const nested = v.nested.map((n) => ({
    request: compactMessage(n.request, 1200),
    ...(n.response ? { response: compactMessage(n.response, 1200) } : {}),
  }));
  const exchanges = v.exchanges.map((x) => compactExchange(x, redactor));
  const violations = v.violations.map(compactProblem);
  const problems = v.problems.map(compactProblem);

  const lines: string[] = [];
  const st =
    v.status === 'answered'
      ? `answered${v.latencyMs !== undefined ? ` in ${formatMs(v.latencyMs)}` : ''}`
      : v.status === 'error'
        ? `failed${v.latencyMs !== undefined ? ` after ${formatMs(v.latencyMs)}` : ''}${response?.error ? `: error ${response.error.code} ${response.error.message}` : response?.isError ? ': tool result isError' : ''}`
        : v.status === 'pending'
          ? 'no response yet (pending)'
          : v.status === 'http-error'
            ? `no JSON-RPC answer: its HTTP request failed (${exchanges.find((x) => x.id === v.request.exchangeId)?.status ?? 'see below'})`
            : v.status;
  lines.push(`${msgHead(request)} in session ${v.request.sessionId}: ${st}`);
  lines.push(`request: ${request.json}${request.jsonCut ? ' [cut]' : ''}`);
  lines.push(...hintLines(request.hints, '  hint '));
  if (progress.length > 0 || v.progressOmitted > 0) {
    lines.push(
      `progress (${progress.length + v.progressOmitted}${v.progressOmitted ? `, ${v.progressOmitted} in the middle not shown` : ''}):`,
    );
    for (const p of progress) {
      const pr = p.progress;
      lines.push(
        `  #${p.seq} ${p.ts?.slice(11, 23) ?? ''} ${pr ? `${pr.progress}${pr.total !== undefined ? `/${pr.total}` : ''}${pr.message ? ` ${pr.message}` : ''}` : p.json}`,
      );
    }
  }
  if (nested.length > 0 || v.nestedOmitted > 0) {
    lines.push(`server messages inside this call (${nested.length + v.nestedOmitted}):`);
    for (const n of nested) {
      lines.push(`  ${msgHead(n.request)}: ${cut(n.request.json, 600)}`);
      if (n.response) lines.push(`    → ${msgHead(n.response)}: ${cut(n.response.json, 600)}`);
      else if (n.request.kind === 'request') lines.push('    → no answer yet');
    }
  }
  for (const c of cancellation) lines.push(`cancelled: ${msgHead(c)}: ${cut(c.json, 400)}`);
  if (response) {
    lines.push(`response ${msgHead(response)}: ${response.json}${response.jsonCut ? ' [cut]' : ''}`);
    if (response.error?.meaning) lines.push(`  meaning: ${response.error.meaning}`);
    lines.push(...hintLines(response.hints, '  hint '));
  }
  for (const x of exchanges) {
    lines.push(
      `HTTP ${x.id}: ${x.method} ${cut(x.url, 200)} → ${x.status ?? 'no status'}${x.responseType ? ` ${x.responseType}` : ''}${x.headMs !== undefined ? `, head after ${formatMs(x.headMs)}` : ''}${x.durationMs !== undefined ? `, ${formatMs(x.durationMs)} in all` : ', still open'}${x.aborted ? `, aborted by ${x.aborted}` : ''}${x.error ? `: ${x.error}` : ''}`,
    );
    if (x.responsePreview) lines.push(`  response body: ${clip(x.responsePreview, 300)}`);
    lines.push(...hintLines(x.hints, '  hint '));
  }
  for (const p of violations)
    lines.push(
      `spec violation in #${String(p.message)}: ${String(p.rule ?? '')} ${String(p.text)}${p.specRef ? ` (spec ${String(p.specRef)})` : ''}`,
    );
  if (v.violationsOmitted > 0) lines.push(`… and ${plural(v.violationsOmitted, 'more spec violation')} in the middle, not shown`);
  for (const p of problems)
    lines.push(
      `problem ${String(p.code)}: ${String(p.text)}${p.raw !== undefined ? ` Bytes: ${JSON.stringify(cut(String(p.raw), 200))}` : ''}`,
    );
  if (v.problemsOmitted > 0) lines.push(`… and ${plural(v.problemsOmitted, 'more problem')} in the middle, not shown`);

  // mcpscope's own line: numbers and words of its own, nothing a peer wrote (the status's error text is in the frame).
  const own = `Call #${v.request.seq} in session ${v.request.sessionId}${v.parent !== undefined ? ` (a server request inside #${v.parent})` : ''}: ${ownStatus(v.status, v.latencyMs, response)}.`;
  return {
    text: agentText(
      [own],
      lines,
      [],
      MAX_RESULT_TEXT,
      'the structured result holds each message; GET /api/messages/<seq> on the UI has one in full',
    ),
    structured: {
      status: v.status,
      ...(v.latencyMs !== undefined ? { latencyMs: v.latencyMs } : {}),
      session: v.request.sessionId,
      ...(v.parent !== undefined ? { parent: v.parent } : {}),
      request,
      ...(response ? { response } : {}),
      progress,
      ...(v.progressOmitted ? { progressOmitted: v.progressOmitted } : {}),
      cancellation,
      nested,
      ...(v.nestedOmitted ? { nestedOmitted: v.nestedOmitted } : {}),
      exchanges,
      violations,
      ...(v.violationsOmitted ? { violationsOmitted: v.violationsOmitted } : {}),
      problems,
      ...(v.problemsOmitted ? { problemsOmitted: v.problemsOmitted } : {}),
    },
  };
}

function ownStatus(status: CallView['status'], latencyMs: number | undefined, response: CompactMessage | undefined): string {
  const after = latencyMs !== undefined ? ` ${status === 'answered' ? 'in' : 'after'} ${formatMs(latencyMs)}` : '';
  switch (status) {
    case 'answered':
      return `answered${after}`;
    case 'error':
      return `failed${after}${response?.error ? ` with error ${response.error.code}` : response?.isError ? ' (tool result isError)' : ''}`;
    case 'pending':
      return 'no response yet (pending)';
    case 'http-error':
      return 'no JSON-RPC answer: its HTTP request failed';
    default:
      return status;
  }
}

/** A structured value bounded for an agent: the JSON as-is when small, else its text cut. */
export function boundedJson(value: unknown, max = MAX_RESULT_TEXT): string {
  return boundText(JSON.stringify(value, null, 1) ?? '', max);
}
