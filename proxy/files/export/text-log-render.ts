/**
 * How the annotated log's entries are printed (proxy/files/export/text-log.ts makes them): the entry
 * types, ANSI colours for a terminal, the JSON log line (docs/terminal-log.md), and the small
 * formatting helpers both use (bounded pretty JSON, wrapping, times, sizes). PURE like
 * text-log.ts: no Node builtin (eslint.config.js).
 */
import type { Direction, Hint, JsonRpcId } from '../../core/model/events.js';
import { formatBytes, formatClock } from '../../core/model/units.js';
import { visibleParts } from '../../core/model/visible-text.js';

export interface TextLogOptions {
  /** ANSI colours (a terminal). The formatter never looks at the environment: the writer decides (NO_COLOR, FORCE_COLOR, isTTY). */
  colour?: boolean;
  /** Hint text is wrapped at this many columns (0: never). Default 100. */
  width?: number;
  /** Lines of pretty-printed JSON per message before "… N more lines". Default 20. */
  maxJsonLines?: number;
  /** Characters per JSON line before it is cut with "…". Default 200. */
  maxLineChars?: number;
  /** Times in UTC instead of this machine's local time (golden files). */
  utc?: boolean;
}

/** What a log entry is about. */
export type LogEntryKind =
  'session' | 'request' | 'response' | 'end' | 'message' | 'sse' | 'problem' | 'modification' | 'log' | 'paused' | 'model-turn';

/** A piece of a line and how it is coloured. */
export type Style =
  'time' | 'session' | 'request' | 'ok' | 'bad' | 'sse' | 'c2s' | 's2c' | 'json' | 'info' | 'warn' | 'error' | 'note' | 'plain';
export type Segment = [Style, string];

/** One thing that happened, as the log prints it (the JSON log format writes these fields, docs/terminal-log.md). */
export interface LogEntry {
  /** The event's seq (an exchange line: the upsert that made it known). */
  seq: number;
  /** When it happened on the wire (epoch ms). */
  ts: number;
  session?: string;
  exchange?: string;
  kind: LogEntryKind;
  dir?: Direction;
  /** JSON-RPC method (message entries; for a response, its request's), or the HTTP method (exchange entries). */
  method?: string;
  /** Tool, prompt or resource. */
  name?: string;
  id?: JsonRpcId;
  /** Plain words: "response to #12 tools/call echo", "progress 2/4 of #17". */
  correlation?: string;
  /** A response's time since its request; a response line's time since the request started. */
  latencyMs?: number;
  /** HTTP status (response lines). */
  status?: number;
  hints: Hint[];
  /** The message (redacted as exports are), for the JSON log. */
  message?: unknown;
  /** Its size on the wire. */
  size?: number;
  /** The text lines, as segments (render with `renderEntry`). */
  lines: Segment[][];
}

/** Time column + session column: continuation lines are indented past it. */
const PREFIX_WIDTH = 12 + 1 + 5;
const INDENT = ' '.repeat(PREFIX_WIDTH + 2);

export function idText(id: JsonRpcId | undefined): string {
  return id === undefined ? '' : JSON.stringify(id);
}

/**
 * `value` as `JSON.stringify(value, null, 2)` would print it, but bounded: at most `maxLines`
 * lines, each cut at `maxChars`; `more` counts the lines left out (the walk goes on counting them
 * without building them).
 */
export function prettyJsonLines(value: unknown, maxLines: number, maxChars: number): { lines: string[]; more: number } {
  const lines: string[] = [];
  let more = 0;
  const push = (line: string) => {
    if (lines.length >= maxLines) more += 1;
    else lines.push(line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line);
  };
  const scalar = (v: unknown): string => {
    if (typeof v === 'string') return JSON.stringify(v.length > maxChars ? v.slice(0, maxChars) : v);
    if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
    if (typeof v === 'boolean' || v === null) return String(v);
    return 'null';
  };
  const walk = (v: unknown, indent: string, head: string, tail: string, depth: number): void => {
    if (v !== null && typeof v === 'object' && depth < 200) {
      const entries: [string | undefined, unknown][] = Array.isArray(v)
        ? v.map((x) => [undefined, x])
        : Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined && typeof x !== 'function');
      const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
      if (entries.length === 0) return push(`${indent}${head}${open}${close}${tail}`);
      push(`${indent}${head}${open}`);
      const inner = `${indent}  `;
      entries.forEach(([k, x], i) =>
        walk(x, inner, k === undefined ? '' : `${JSON.stringify(k)}: `, i < entries.length - 1 ? ',' : '', depth + 1),
      );
      return push(`${indent}${close}${tail}`);
    }
    push(`${indent}${head}${scalar(v)}${tail}`);
  };
  walk(value, '', '', '', 0);
  return { lines, more };
}

/** Words wrapped at `width` columns (0: not wrapped). */
export function wrap(text: string, width: number): string[] {
  if (width <= 0 || text.length <= width) return [text];
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

const ANSI: Record<Style, string> = {
  time: '\x1b[2m',
  session: '\x1b[1;36m',
  request: '\x1b[1;34m',
  ok: '\x1b[1;32m',
  bad: '\x1b[1;31m',
  sse: '\x1b[35m',
  c2s: '\x1b[34m',
  s2c: '\x1b[32m',
  json: '',
  info: '\x1b[36m',
  warn: '\x1b[33m',
  error: '\x1b[31m',
  note: '\x1b[2m',
  plain: '',
};
const RESET = '\x1b[0m';

/**
 * Characters a peer must not get to a terminal through the log: the ones the UI draws as badges
 * (proxy/core/model/visible-text.ts, one list for the UI, the log and `mcpscope mcp`) — C0 controls
 * (ESC starts the sequences that recolour, retitle, move the cursor or — OSC 52 — write the
 * clipboard; CR, LF, U+2028 and U+2029 would forge log lines of their own), DEL, C1 controls, the
 * bidirectional controls that make text read other than it is, zero-width and format characters
 * (two names that look the same, and are not), tag characters (a sentence nobody sees), runs of
 * variation selectors, lone surrogates — but a tab, which a terminal only moves past. Messages are
 * JSON-escaped already; SSE lines, stderr lines, names, URLs and header values are quoted as they came.
 */
const escapeUnit = (n: number) => (n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`);

/** `text` with every unsafe character shown as its escape (`\x1b`, `\u202e`, a tag character as `\udb40\udc41`): what was sent stays readable, and inert. */
export function inert(text: string): string {
  let out = '';
  for (const part of visibleParts(text)) {
    if (typeof part === 'string') out += part;
    else if (part.text === '\t') out += part.text;
    else for (let i = 0; i < part.text.length; i++) out += escapeUnit(part.text.charCodeAt(i));
  }
  return out;
}

/** One entry as text: its first line after the time and session columns, the others indented. Ends in "\n". */
export function renderEntry(entry: LogEntry, options: Pick<TextLogOptions, 'colour' | 'utc'> = {}): string {
  const paint = (style: Style, raw: string) => {
    const text = inert(raw);
    return options.colour && ANSI[style] && text ? `${ANSI[style]}${text}${RESET}` : text;
  };
  const line = (segs: Segment[]) => segs.map(([s, t]) => paint(s, t)).join('');
  const time = paint('time', formatClock(entry.ts, options.utc === true));
  const session = paint('session', (entry.session ?? '--').padEnd(4));
  let out = '';
  entry.lines.forEach((segs, i) => {
    out += i === 0 ? `${time} ${session} ${line(segs)}\n` : `${INDENT}${line(segs)}\n`;
  });
  return out;
}

/** One entry as a JSON log line (NDJSON; docs/terminal-log.md lists the fields). Ends in "\n". */
export function renderJsonEntry(entry: LogEntry, options: Pick<TextLogOptions, 'utc'> = {}): string {
  const text = renderEntry(entry, { colour: false, utc: options.utc }).replace(/\n$/, '');
  const o: Record<string, unknown> = {
    ts: new Date(entry.ts).toISOString(),
    seq: entry.seq,
    session: entry.session,
    exchange: entry.exchange,
    kind: entry.kind,
    dir: entry.dir,
    method: entry.method,
    name: entry.name,
    id: entry.id,
    status: entry.status,
    correlation: entry.correlation,
    latencyMs: entry.latencyMs,
    hints: entry.hints.length > 0 ? entry.hints : undefined,
    text,
  };
  if (entry.message !== undefined) {
    if ((entry.size ?? 0) <= MAX_JSON_MESSAGE) o.message = entry.message;
    else o.messageOmitted = `${formatBytes(entry.size!)}: larger than the log keeps (the UI and the exports have it)`;
  }
  // JSON.stringify escapes C0 controls and lone surrogates, not the rest of what inert() escapes
  // (DEL, C1, bidi, zero-width, U+2028/9, tag characters): those are written as JSON escapes too,
  // so the line parses to the same values and cannot drive a terminal it is printed on.
  let line = '';
  for (const part of visibleParts(JSON.stringify(o))) {
    if (typeof part === 'string') line += part;
    else for (let i = 0; i < part.text.length; i++) line += `\\u${part.text.charCodeAt(i).toString(16).padStart(4, '0')}`;
  }
  return `${line}\n`;
}

/** Messages larger than this are not copied into a JSON log line whole. */
const MAX_JSON_MESSAGE = 256 * 1024;
