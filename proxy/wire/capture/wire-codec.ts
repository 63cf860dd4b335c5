/**
 * Wire records as JSON, for the UI port's `/ingest` WebSocket: a stdio wrapper
 * (proxy/app/stdio/stdio-wrapper.ts) sends batches of records — a JSON array, chunks in base64 — to
 * the mcpscope that serves the UI, which decodes them and pushes them into its own capture queue.
 *
 * Only the records a wrapper produces travel this way (`stdio-*`, `overflow`, and a breakpoint's
 * `modification`); decoding
 * validates every field, so a malformed batch is refused as a whole.
 */
import type { WireRecord } from './wire-records.js';

/** The records a wrapper may send. */
export type IngestRecord = Extract<
  WireRecord,
  { t: 'stdio-start' | 'stdio-chunk' | 'stdio-stderr' | 'stdio-exit' | 'overflow' | 'modification' | 'stdio-note' }
>;

function base64(chunk: Uint8Array): string {
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('base64');
}

/** One batch as the text of a WebSocket message. */
export function encodeBatch(records: readonly IngestRecord[]): string {
  return JSON.stringify(records.map((r) => ('chunk' in r ? { ...r, chunk: base64(r.chunk) } : r)));
}

const MAX_XID = 200;
/** The modifications a wrapper makes: a breakpoint's (docs/transparency.md). */
const BREAKPOINT_WHAT: readonly string[] = ['breakpoint', 'breakpoint-edit', 'breakpoint-drop', 'breakpoint-respond'];
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

type Fields = Record<string, unknown>;

const isStr = (v: unknown, max = Infinity): v is string => typeof v === 'string' && v.length <= max;
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isOpt = <T>(v: unknown, check: (v: unknown) => v is T): boolean => v === undefined || check(v);

function chunkOf(v: unknown): Uint8Array | undefined {
  if (typeof v !== 'string' || v.length % 4 !== 0 || !BASE64.test(v)) return undefined;
  return Buffer.from(v, 'base64');
}

/** Decodes one record, or says why it is not one. */
function decodeRecord(o: Fields): IngestRecord | string {
  const { t, xid, ts } = o;
  if (!isStr(xid, MAX_XID) || xid === '') return 'a record without a valid "xid"';
  if (!isNum(ts)) return `record ${xid}: "ts" is not a number`;
  switch (t) {
    case 'stdio-start': {
      const { command, args, pid, cwd, joined } = o;
      if (!isStr(command) || !Array.isArray(args) || !args.every((a) => isStr(a)))
        return `record ${xid}: stdio-start needs "command" and string "args"`;
      if (!isOpt(pid, isNum) || !isOpt(cwd, isStr) || (joined !== undefined && typeof joined !== 'boolean'))
        return `record ${xid}: bad "pid", "cwd" or "joined"`;
      const r: IngestRecord = { t, xid, ts, command, args: args as string[] };
      if (pid !== undefined) r.pid = pid as number;
      if (cwd !== undefined) r.cwd = cwd as string;
      if (joined) r.joined = true;
      return r;
    }
    case 'stdio-chunk': {
      const chunk = chunkOf(o.chunk);
      if (o.dir !== 'c2s' && o.dir !== 's2c') return `record ${xid}: stdio-chunk "dir" must be c2s or s2c`;
      if (!chunk) return `record ${xid}: "chunk" is not base64`;
      if (o.sentBy !== undefined && o.sentBy !== 'mcpscope') return `record ${xid}: stdio-chunk "sentBy" can only be "mcpscope"`;
      return { t, xid, ts, dir: o.dir, chunk, ...(o.sentBy ? { sentBy: 'mcpscope' as const } : {}) };
    }
    case 'stdio-note': {
      const { dir, code, text } = o;
      if ((dir !== 'c2s' && dir !== 's2c') || !isStr(code, 100) || !isStr(text, 2000))
        return `record ${xid}: stdio-note needs "dir", "code" and "text"`;
      return { t, xid, ts, dir, code, text };
    }
    case 'modification': {
      // A breakpoint's change, made by the wrapper (proxy/app/stdio/line-holder.ts).
      const { what, before, after, text, pausedId, edited } = o;
      if (!BREAKPOINT_WHAT.includes(what as string) || !isStr(before) || !isStr(after) || !isStr(text, 2000))
        return `record ${xid}: a modification needs what "breakpoint…", "before", "after" and "text"`;
      if (!isOpt(pausedId, (v): v is string => isStr(v, MAX_XID)) || (edited !== undefined && edited !== 'c2s' && edited !== 's2c'))
        return `record ${xid}: bad modification "pausedId" or "edited"`;
      return {
        t,
        xid,
        ts,
        what: what as string,
        before,
        after,
        text,
        ...(pausedId ? { pausedId: pausedId as string } : {}),
        ...(edited ? { edited } : {}),
      };
    }
    case 'stdio-stderr': {
      const chunk = chunkOf(o.chunk);
      if (!chunk) return `record ${xid}: "chunk" is not base64`;
      return { t, xid, ts, chunk };
    }
    case 'stdio-exit': {
      const { code, signal } = o;
      if (!(code === null || (Number.isInteger(code) && isNum(code))) || !(signal === null || isStr(signal, 64)))
        return `record ${xid}: stdio-exit needs "code" (integer or null) and "signal" (string or null)`;
      return { t, xid, ts, code: code as number | null, signal: signal as string | null };
    }
    case 'overflow': {
      const { droppedBytes, stream } = o;
      if (!isNum(droppedBytes) || droppedBytes < 0) return `record ${xid}: overflow needs "droppedBytes"`;
      if (stream !== undefined && stream !== 'c2s' && stream !== 's2c' && stream !== 'stderr')
        return `record ${xid}: bad overflow "stream"`;
      const r: IngestRecord = { t, xid, ts, droppedBytes };
      if (stream !== undefined) r.stream = stream;
      return r;
    }
    default:
      return `record ${xid}: type ${JSON.stringify(t)} cannot be ingested (only stdio-start, stdio-chunk, stdio-stderr, stdio-exit, overflow, stdio-note and a breakpoint's modification)`;
  }
}

/** Decodes a batch (the text of one WebSocket message). Refuses the whole batch on the first bad record. */
export function decodeBatch(text: string): { records: IngestRecord[] } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: `not JSON: ${(err as Error).message}` };
  }
  if (!Array.isArray(value)) return { error: 'a batch must be a JSON array of records' };
  const records: IngestRecord[] = [];
  for (const item of value) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return { error: 'every record must be a JSON object' };
    const r = decodeRecord(item as Fields);
    if (typeof r === 'string') return { error: r };
    records.push(r);
  }
  return { records };
}
