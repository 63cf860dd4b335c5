/**
 * The stage an SSE response goes through while breakpoints exist (proxy thread): it forwards the
 * stream event by event — an event's bytes go on once its blank line has come — and asks about
 * each event that carries JSON-RPC (`decide`). A held event holds the stream behind it: later
 * events wait, in order, and the upstream is paused by backpressure. What goes on is the event
 * as it came, an edited event (its `data:` lines replaced by the new message, every other line
 * kept), or nothing.
 *
 * Started on a stream already flowing (the first rule came while it was open), the stage starts
 * reading at once when the next bytes begin like an event (a field name or a comment: servers
 * write an event at a time); otherwise it forwards bytes untouched up to the first blank line,
 * where the next event begins.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { SseLineSplitter, sseField, type SseEol } from '../../../core/parse/sse-parser.js';
import { HOLD_MAX_BYTES } from '../../../core/rules/breakpoint-types.js';

export interface SseEventView {
  /** The event's bytes as they came. */
  raw: Buffer;
  /** Its data (data lines joined with LF), when it has data lines. */
  data?: string;
  /** Its `event:` type. */
  type?: string;
}

/** What to send in an event's place: the bytes as they came, other bytes, or nothing. */
export type SseVerdict = { send: 'as-is' } | { send: 'data'; data: string } | { send: 'nothing' };

interface Line {
  start: number;
  end: number;
  kind: ReturnType<typeof sseField>['kind'] | 'blank';
  eol: SseEol;
  value?: string;
}

const decoder = new TextDecoder();

/** Whether bytes begin like an event: a field name and its colon, or a comment. */
function startsAnEvent(chunk: Buffer): boolean {
  return /^(?:data|event|id|retry)?:/.test(chunk.subarray(0, 8).toString('latin1'));
}

export class SseHoldStage extends Transform {
  /** Unforwarded bytes, from stream offset `base`. */
  private buf: Buffer = Buffer.alloc(0);
  private base = 0;
  /** Where the event being read begins. */
  private eventStart = 0;
  private lines: Line[] = [];
  private readonly splitter = new SseLineSplitter(HOLD_MAX_BYTES);
  private ready: { start: number; end: number; lines: Line[] }[] = [];
  /** Forwarding untouched until the first blank line (started mid-stream), or for good (an event too large to hold). */
  private passing: 'until-blank' | 'always' | undefined;

  /**
   * @param decide called for each complete event with data; answers with a verdict, at once or later.
   * @param midStream the stream was already flowing when the stage was put in.
   */
  constructor(
    private readonly decide: (event: SseEventView, verdict: (v: SseVerdict) => void) => void,
    midStream: boolean,
    private readonly onTooLarge?: (bytes: number) => void,
  ) {
    super();
    if (midStream) this.passing = 'until-blank';
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    if (this.passing === 'always') return cb(null, chunk);
    if (this.passing === 'until-blank' && this.base === 0 && this.buf.length === 0 && startsAnEvent(chunk)) {
      // Servers write an event at a time: bytes that start with a field name start an event. (Were
      // they the middle of one, its data would not parse as a message and would go on as it came.)
      this.passing = undefined;
    }
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    this.splitter.push(chunk, {
      line: (start, content, length, eol) => {
        const end = start + length + eol.length;
        if (length === 0 && eol !== '') {
          this.ready.push({ start: this.eventStart, end, lines: this.lines });
          this.lines = [];
          this.eventStart = end;
          return;
        }
        const f = sseField(content);
        this.lines.push({
          start,
          end,
          kind: f.kind,
          eol,
          ...(f.kind === 'data' || f.kind === 'event' ? { value: decoder.decode(content.subarray(f.valueStart)) } : {}),
        });
      },
    });
    if (this.passing === undefined && this.base + this.buf.length - this.eventStart > 2 * HOLD_MAX_BYTES) {
      // An event far larger than a holder holds, still coming: the rest of the stream goes on untouched.
      this.onTooLarge?.(this.base + this.buf.length - this.eventStart);
      this.passing = 'always';
      this.drainReady(() => {
        const rest = this.takeUpTo(this.base + this.buf.length);
        cb(null, rest.length ? rest : undefined);
      });
      return;
    }
    this.drainReady(() => cb());
  }

  override _flush(cb: TransformCallback): void {
    // What is left (an unterminated event) goes on as it came.
    this.drainReady(() => {
      const rest = this.takeUpTo(this.base + this.buf.length);
      cb(null, rest.length ? rest : undefined);
    });
  }

  /** Forwards the complete events in order, waiting on each held one; then `done`. */
  private drainReady(done: () => void): void {
    while (this.ready.length > 0) {
      const ev = this.ready.shift()!;
      const raw = this.takeUpTo(ev.end);
      if (this.passing === 'until-blank') {
        this.passing = undefined;
        this.push(raw);
        continue;
      }
      if (this.passing === 'always') {
        this.push(raw);
        continue;
      }
      if (ev.end - ev.start > HOLD_MAX_BYTES) {
        // Larger than a holder holds: it goes on as it came, unread.
        this.onTooLarge?.(ev.end - ev.start);
        this.push(raw);
        continue;
      }
      const dataLines = ev.lines.filter((l) => l.kind === 'data');
      if (dataLines.length === 0) {
        this.push(raw);
        continue;
      }
      const type = ev.lines.find((l) => l.kind === 'event')?.value;
      const view: SseEventView = { raw, data: dataLines.map((l) => l.value).join('\n'), ...(type !== undefined ? { type } : {}) };
      let sync = true;
      let answered: SseVerdict | undefined;
      this.decide(view, (v) => {
        if (answered) return;
        answered = v;
        if (!sync) {
          this.emitVerdict(ev, raw, v);
          this.drainReady(done);
        }
      });
      sync = false;
      if (!answered) return; // held: the rest waits until the verdict
      this.emitVerdict(ev, raw, answered);
    }
    done();
  }

  private emitVerdict(ev: { start: number; end: number; lines: Line[] }, raw: Buffer, v: SseVerdict): void {
    if (this.destroyed) return;
    if (v.send === 'as-is') this.push(raw);
    else if (v.send === 'data') this.push(reframe(ev, raw, v.data));
  }

  /** The unforwarded bytes up to stream offset `end`, removed from the buffer. */
  private takeUpTo(end: number): Buffer {
    const n = end - this.base;
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    this.base = end;
    return out;
  }
}

/**
 * The event with its data replaced: every line but the data lines kept as it came (id, event,
 * retry, comments, the bytes between), the first data line's place taking one `data:` line per
 * line of the new data, each ended like the event's first data line.
 */
export function reframe(ev: { start: number; end: number; lines: Line[] }, raw: Buffer, data: string): Buffer {
  const at = (offset: number) => offset - ev.start;
  const parts: Buffer[] = [];
  let cursor = ev.start;
  let wrote = false;
  for (const l of ev.lines) {
    parts.push(raw.subarray(at(cursor), at(l.start)));
    if (l.kind === 'data') {
      if (!wrote) {
        const eol = l.eol === '' ? '\n' : l.eol;
        parts.push(
          Buffer.from(
            data
              .split(/\r\n|\r|\n/)
              .map((line) => `data: ${line}${eol}`)
              .join(''),
            'utf8',
          ),
        );
        wrote = true;
      }
    } else parts.push(raw.subarray(at(l.start), at(l.end)));
    cursor = l.end;
  }
  parts.push(raw.subarray(at(cursor), at(ev.end)));
  return Buffer.concat(parts);
}
