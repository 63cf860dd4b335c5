/**
 * What the three exports (fixture, HAR, NDJSON) and the NDJSON recorder share: picking a
 * session's events out of the store, and the export-time redaction pass.
 *
 * Everything in the store was redacted by the recorder already. Exports redact again anyway
 * (defence in depth: a capture recorded with --show-secrets, or a recorder bug, must not leak
 * into a file that gets attached to a bug report), and scrub the proxy token from every string
 * and every key of the output.
 */
import { MAX_FILE_DEPTH } from '../import/capture-depth.js';
import type { McpscopeEvent, MessageEvent } from '../../core/model/events.js';
import { createRedactor, redactLooseText, redactPreview, type Redactor } from '../../recorder/redact/redact.js';

// The recorder redacts previews the same way (proxy/recorder/redact/redact.ts); the exports import them from here.
export { redactLooseText, redactPreview };
import { eventSession, type EventStore } from '../../recorder/store/event-store.js';
import { redactTurn } from './export-model-turn.js';
import { packageVersion } from '../package-version.js';
export { byteLength } from '../../core/model/byte-length.js';
export { compact } from '../../core/model/compact.js';

export interface ExportRedactionOptions {
  /** mcpscope's own token: never appears in an export (any string of 8+ characters is scrubbed). */
  token?: string;
  /** Further strings to scrub wherever they appear. */
  extraSecrets?: string[];
  /** A ready redactor (must redact: exports always do). Overrides `token`/`extraSecrets`. */
  redactor?: Redactor;
}

/** The redactor exports use: always enabled, whatever --show-secrets said for the UI. */
export function exportRedactor(options: ExportRedactionOptions = {}): Redactor {
  if (options.redactor) return options.redactor;
  const secrets = [...(options.token ? [options.token] : []), ...(options.extraSecrets ?? [])];
  return createRedactor({ showSecrets: false, extraSecrets: secrets });
}

/** Applies `r.text` to every string and every object key, deeply. Returns the same object when nothing changed. */
export function scrub<T>(value: T, r: Redactor, depth = 0): T {
  if (typeof value === 'string') return r.text(value) as T;
  // Stored values are at most MAX_FILE_DEPTH deep (cut where parsed or loaded): this bound is never reached by them.
  if (depth > MAX_FILE_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = scrub(value[i] as unknown, r, depth + 1);
      if (v !== value[i]) (copy ??= value.slice())[i] = v;
    }
    return (copy ?? value) as T;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const key = r.text(k);
    const next = scrub(v, r, depth + 1);
    if (key !== k || next !== v) changed = true;
    out[key] = next;
  }
  return (changed ? out : value) as T;
}

/** An SSE block's raw text: `data:` lines holding JSON have their credential fields redacted. */
export function redactSseRaw(raw: string, r: Redactor): string {
  return r.text(
    raw.replace(/^(data:[ ]?)(.*)$/gm, (line, prefix: string, value: string) => {
      const redacted = redactLooseText(value, r);
      return redacted === value ? line : prefix + redacted;
    }),
  );
}

/** A URL, or a command line (stdio targets). */
export function redactTarget(target: string, r: Redactor): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? r.url(target) : r.text(target);
}

/** A message mcpscope cut because it nested too deep (core/parse/json-depth.ts): its `raw` is never exported. */
function isCutForDepth(m: MessageEvent): boolean {
  return Array.isArray(m.hints) && m.hints.some((h) => h.code === 'too-deep');
}

/** The export-time redaction of one event (a new object; the store's is never touched). */
export function redactEvent(e: McpscopeEvent, r: Redactor): McpscopeEvent {
  let out: McpscopeEvent;
  switch (e.type) {
    case 'session': {
      const s = { ...e.session, target: redactTarget(e.session.target, r) };
      if (s.endpoint !== undefined) s.endpoint = r.url(s.endpoint);
      if (s.clientCapabilities) s.clientCapabilities = r.json(s.clientCapabilities);
      if (s.serverCapabilities) s.serverCapabilities = r.json(s.serverCapabilities);
      out = { ...e, session: s };
      break;
    }
    case 'exchange': {
      const x = { ...e.exchange, url: r.url(e.exchange.url), requestHeaders: r.headers(e.exchange.requestHeaders) };
      if (x.upstreamUrl !== undefined) x.upstreamUrl = r.url(x.upstreamUrl);
      if (x.responseHeaders) x.responseHeaders = r.headers(x.responseHeaders);
      if (x.requestPreview !== undefined) x.requestPreview = redactPreview(x.requestPreview, x.requestType, r);
      if (x.responsePreview !== undefined) x.responsePreview = redactPreview(x.responsePreview, x.responseType, r);
      out = { ...e, exchange: x };
      break;
    }
    case 'message': {
      const jsonrpc = r.json(e.jsonrpc);
      const m: MessageEvent = { ...e, jsonrpc };
      // `raw` is the exact frame: once redaction changes the message, the frame text would disagree with it.
      // A message cut for depth: its raw text is the deep original, which redaction cannot see into.
      if (jsonrpc !== e.jsonrpc || isCutForDepth(e)) delete m.raw;
      else if (m.raw !== undefined) m.raw = r.text(m.raw);
      out = m;
      break;
    }
    case 'sse': {
      const s = { ...e, raw: redactSseRaw(e.raw, r) };
      if (s.data !== undefined) s.data = s.what === 'endpoint' ? r.url(s.data) : redactLooseText(s.data, r);
      out = s;
      break;
    }
    case 'problem': {
      const p = { ...e };
      if (p.raw !== undefined) p.raw = redactLooseText(p.raw, r);
      out = p;
      break;
    }
    case 'modification':
      out = { ...e, before: r.text(e.before), after: r.text(e.after) };
      break;
    case 'model-turn':
      out = { ...e, turn: redactTurn(e.turn, r) };
      break;
    default:
      out = { ...e };
  }
  return scrub(out, r);
}

/**
 * One session's events in wire order (latest session/exchange upserts only, as the feed's
 * snapshot): everything tagged with the session, and everything on its exchanges (an SSE block
 * or problem recorded before the exchange was tied to the session).
 */
export function sessionEventsOf(store: EventStore, sessionId: string): McpscopeEvent[] {
  const all = store.snapshot();
  const exchanges = new Set<string>();
  for (const e of all) if (e.type === 'exchange' && e.exchange.sessionId === sessionId) exchanges.add(e.exchange.id);
  return all.filter((e) => {
    if (eventSession(e) === sessionId) return true;
    if (e.type === 'exchange') return false;
    const xid = 'exchangeId' in e ? e.exchangeId : undefined;
    return xid !== undefined && exchanges.has(xid);
  });
}

/** Milliseconds rounded to the microsecond, so fixtures diff without float noise. */
export function ms(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** mcpscope's version (package.json). */
export function mcpscopeVersion(): string {
  return packageVersion();
}

/**
 * The text of a group of messages that travelled as one frame (one JSON-RPC message, or the
 * members of a batch): the exact frame when it is kept and redaction did not change it,
 * otherwise the redacted message(s) re-serialised.
 */
export function frameText(group: readonly MessageEvent[], r: Redactor): string {
  if (group.length === 1 && !group[0].batch) {
    const m = group[0];
    const redacted = r.json(m.jsonrpc);
    return redacted === m.jsonrpc && m.raw !== undefined && !isCutForDepth(m) ? r.text(m.raw) : r.text(JSON.stringify(redacted));
  }
  const members = [...group].sort((a, b) => (a.batch?.index ?? 0) - (b.batch?.index ?? 0)).map((m) => r.json(m.jsonrpc));
  return r.text(JSON.stringify(members));
}

/**
 * Groups messages by the frame that carried them: batch members sharing an exchange and a frame
 * offset form one group; every other message is its own group. Order is kept.
 */
export function groupFrames(messages: readonly MessageEvent[]): MessageEvent[][] {
  const groups: MessageEvent[][] = [];
  const byFrame = new Map<string, MessageEvent[]>();
  for (const m of messages) {
    if (m.batch && m.location) {
      const key = `${m.exchangeId}:${m.dir}:${m.location.offset}`;
      const g = byFrame.get(key);
      if (g) {
        g.push(m);
        continue;
      }
      const fresh = [m];
      byFrame.set(key, fresh);
      groups.push(fresh);
    } else {
      groups.push([m]);
    }
  }
  return groups;
}
