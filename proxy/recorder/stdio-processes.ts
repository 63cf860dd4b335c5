/**
 * The stdio side of the recorder: wrapped server processes (`stdio-*` records from
 * proxy/app/stdio/stdio-wrapper.ts). One session per process, one NDJSON reader per direction whose
 * lines take the shared message path (message-path.ts), stderr lines as log events.
 */
import type { Direction, Hint, SessionInfo } from '../core/model/events.js';
import type { StdioStream, WireRecord } from '../wire/capture/wire-records.js';
import { classifyPayload } from '../core/parse/jsonrpc.js';
import { BodyReader, type BodyFrame } from '../core/parse/body-reader.js';
import { commandLine } from '../core/model/command-line.js';
import { redactArgs } from './redact/redact.js';
import { emitFrame, problemAt } from './message-path.js';
import type { RecorderContext } from './recorder-context.js';

/** A wrapped stdio server process (see proxy/app/stdio/stdio-wrapper.ts). */
export interface ProcessState {
  xid: string;
  session: SessionInfo;
  /** stdin (`c2s`) and stdout (`s2c`) lines. */
  readers: Record<Direction, BodyReader>;
  /**
   * The next line of that direction may be the tail of a line whose start was never seen (after
   * bytes were dropped, or when the recorder joined a running process): if it does not parse, it
   * is noted rather than reported as the peer's mistake.
   */
  partial: Record<Direction, boolean>;
  stderr: BodyReader;
  /** Bytes of each stream, for the exit summary. */
  bytes: Record<StdioStream, number>;
}

/** A stderr line longer than this is cut (the process's stderr still got every byte). */
const STDERR_LINE_BYTES = 8192;

/** How many ended processes' sessions are remembered (sessionOf). */
const ENDED_KEPT = 1000;

export class StdioProcesses {
  private readonly processes = new Map<string, ProcessState>();
  /** Ended processes → their session, the latest ENDED_KEPT (a wrapper's --log asks after its process has exited). */
  private readonly ended = new Map<string, string>();

  constructor(private readonly ctx: RecorderContext) {}

  /** The process recorded under this xid, if its stdio-start was seen. */
  get(xid: string): ProcessState | undefined {
    return this.processes.get(xid);
  }

  /** The session a process was recorded as (running, or among the latest ended ones). */
  sessionOf(xid: string): string | undefined {
    return this.processes.get(xid)?.session.id ?? this.ended.get(xid);
  }

  private forget(proc: ProcessState): void {
    this.processes.delete(proc.xid);
    this.ended.set(proc.xid, proc.session.id);
    if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.keys().next().value!);
  }

  /** The xid of the process recorded as this session, if any. */
  xidOfSession(sessionId: string): string | undefined {
    for (const p of this.processes.values()) if (p.session.id === sessionId) return p.xid;
    return undefined;
  }

  onStdioStart(r: Extract<WireRecord, { t: 'stdio-start' }>): void {
    if (this.processes.has(r.xid)) return;
    const target = this.ctx.redactor.text(commandLine(r.command, this.ctx.redactor.enabled ? redactArgs(r.args) : r.args));
    const notes: Hint[] = [];
    if (r.joined) {
      notes.push({
        level: 'info',
        code: 'joined-mid-process',
        text: 'mcpscope started recording this process after it had started (its wrapper reconnected to this UI): earlier traffic is not here, and the first line each way may be cut.',
      });
    }
    const session = this.ctx.newSession('stdio', target, r.ts, {}, notes);
    const where = [
      r.pid !== undefined ? `pid ${r.pid}` : undefined,
      r.cwd ? `working directory ${this.ctx.redactor.text(r.cwd)}` : undefined,
    ]
      .filter(Boolean)
      .join(', ');
    this.ctx.store.append({
      type: 'log',
      ts: r.ts,
      sessionId: session.id,
      source: 'mcpscope',
      text: `Server process started${where ? ` (${where})` : ''}: ${target}`,
    });
    this.processes.set(r.xid, {
      xid: r.xid,
      session,
      readers: { c2s: this.lineReader(), s2c: this.lineReader() },
      partial: { c2s: !!r.joined, s2c: !!r.joined },
      stderr: new BodyReader({ framing: 'ndjson', maxBytes: STDERR_LINE_BYTES }),
      bytes: { c2s: 0, s2c: 0, stderr: 0 },
    });
  }

  private lineReader(): BodyReader {
    return new BodyReader({ framing: 'ndjson', maxBytes: this.ctx.maxBodyBytes });
  }

  onStdioRecord(proc: ProcessState, r: WireRecord): void {
    switch (r.t) {
      case 'stdio-chunk':
        proc.bytes[r.dir] += r.chunk.byteLength;
        for (const f of proc.readers[r.dir].push(r.chunk)) this.onStdioLine(proc, r.dir, f, r.ts, r.sentBy);
        return;
      case 'modification': {
        // A breakpoint's change (proxy/app/stdio/line-holder.ts). stdio has no exchanges: the event
        // has none (docs/event-schema.md), and an edit marks the session's next line that way.
        const mod = this.ctx.store.append({
          type: 'modification',
          ts: r.ts,
          sessionId: proc.session.id,
          what: r.what,
          before: this.ctx.redactor.text(r.before),
          after: this.ctx.redactor.text(r.after),
          text: r.text,
          ...(r.pausedId !== undefined ? { pausedId: r.pausedId } : {}),
        });
        if (r.edited) this.ctx.markEdited(proc.session.id, r.edited, mod.seq);
        return;
      }
      case 'stdio-note':
        problemAt(this.ctx, { session: proc.session }, 'warn', r.code, r.text);
        return;
      case 'stdio-stderr':
        proc.bytes.stderr += r.chunk.byteLength;
        for (const f of proc.stderr.push(r.chunk)) this.onStderrLine(proc, f, r.ts);
        return;
      case 'stdio-exit':
        return this.onStdioExit(proc, r.ts, r.code, r.signal);
      case 'overflow': {
        // The bytes after the gap cannot be joined to the line before it: start each affected
        // stream afresh, and treat its first line as possibly cut.
        const streams: StdioStream[] = r.stream ? [r.stream] : ['c2s', 's2c', 'stderr'];
        for (const st of streams) {
          if (st === 'stderr') proc.stderr = new BodyReader({ framing: 'ndjson', maxBytes: STDERR_LINE_BYTES });
          else {
            proc.readers[st] = this.lineReader();
            proc.partial[st] = true;
          }
        }
        const what =
          r.stream === 'c2s'
            ? "the client's input (stdin)"
            : r.stream === 's2c'
              ? "the server's output (stdout)"
              : r.stream === 'stderr'
                ? "the server's stderr"
                : 'this process';
        problemAt(
          this.ctx,
          { session: proc.session },
          'warn',
          'capture-overflow',
          `mcpscope fell behind and skipped ${r.droppedBytes} bytes of ${what}; they were relayed, but not recorded.`,
        );
        return;
      }
      case 'abort':
        this.finishProcess(proc, r.ts);
        this.ctx.store.append({
          type: 'log',
          ts: r.ts,
          sessionId: proc.session.id,
          source: 'mcpscope',
          text: `Recording stopped: ${r.reason}. What the process did afterwards is not known here.`,
        });
        this.ctx.closeSession(proc.session, r.ts, 'wrapper-disconnected');
        this.forget(proc);
        return;
      default:
        return;
    }
  }

  private onStdioLine(proc: ProcessState, dir: Direction, f: BodyFrame, ts: number, sentBy?: 'mcpscope'): void {
    const partial = proc.partial[dir];
    proc.partial[dir] = false;
    const cls = f.truncated ? undefined : classifyPayload(f.text);
    if (partial && !cls?.ok) {
      this.ctx.store.append({
        type: 'log',
        ts,
        sessionId: proc.session.id,
        source: 'mcpscope',
        text: `Skipped ${f.length} bytes of ${dir === 's2c' ? 'stdout' : 'stdin'}: the rest of a line whose start mcpscope did not see.`,
      });
      return;
    }
    emitFrame(this.ctx, { session: proc.session, ...(sentBy ? { sentBy: true } : {}) }, dir, 'stdio', f, cls, ts);
  }

  private onStderrLine(proc: ProcessState, f: BodyFrame, ts: number): void {
    const text = f.truncated ? `${f.text} … [line cut: ${f.length} bytes in all]` : f.text;
    this.ctx.store.append({ type: 'log', ts, sessionId: proc.session.id, source: 'stderr', text: this.ctx.redactor.text(text) });
  }

  /** Flushes what the process's streams still held: a last line without a newline. */
  private finishProcess(proc: ProcessState, ts: number): void {
    for (const dir of ['c2s', 's2c'] as const) {
      for (const f of proc.readers[dir].end().frames) {
        const stream = dir === 's2c' ? "The server's stdout" : "The client's input (the server's stdin)";
        problemAt(
          this.ctx,
          { session: proc.session },
          'warn',
          'unterminated-line',
          `${stream} ended with ${f.length} bytes that no newline terminated. On stdio every message ends with a newline, so the ${dir === 's2c' ? 'client' : 'server'} never acted on them.`,
          f.text,
          { offset: f.offset, length: f.length },
        );
      }
    }
    for (const f of proc.stderr.end().frames) this.onStderrLine(proc, f, ts);
  }

  private onStdioExit(proc: ProcessState, ts: number, code: number | null, signal: string | null): void {
    this.finishProcess(proc, ts);
    const session = proc.session;
    const pending = this.ctx.correlator.pendingCount(session.id);
    const how = code !== null ? `exited with code ${code}` : signal ? `was ended by ${signal}` : 'ended';
    const waiting = pending > 0 ? ` ${pending} request${pending === 1 ? ' was' : 's were'} still waiting for an answer.` : '';
    this.ctx.store.append({ type: 'log', ts, sessionId: session.id, source: 'mcpscope', text: `The server process ${how}.${waiting}` });
    if (code !== null && code !== 0) {
      problemAt(
        this.ctx,
        { session },
        'warn',
        'process-failed',
        `The server process exited with code ${code} (a failure). Its stderr lines, if any, are in the log above.`,
      );
    }
    this.ctx.closeSession(session, ts, 'process-exited');
    this.forget(proc);
  }
}
