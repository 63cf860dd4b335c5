/**
 * proxy/recorder/store/call-view.ts: one call gathered from a store recorded through the real Recorder.
 */
import { describe, expect, it } from 'vitest';
import { recordScriptedCapture } from '../../support/scripted-session.js';
import { recordViolatingSession, VIOLATION_RULE } from '../../support/violating-session.js';
import { json, messages, setup, sse } from '../../support/recorder-harness.js';
import {
  callView,
  CALL_VIEW_MAX_PROBLEMS,
  CALL_VIEW_MAX_PROGRESS,
  CALL_VIEW_MAX_VIOLATIONS,
} from '../../../proxy/recorder/store/call-view.js';
import type { MessageEvent } from '../../../proxy/core/model/events.js';
import { McpscopeError } from '../../../proxy/core/model/errors.js';

describe('callView', () => {
  const { store } = recordScriptedCapture();
  const msgs = store.snapshot().filter((e): e is MessageEvent => e.type === 'message');
  const find = (f: (m: MessageEvent) => boolean) => msgs.find(f)!;
  const echo = find((m) => m.kind === 'request' && m.name === 'echo');
  const echoResponse = find((m) => m.kind === 'response' && m.pair === echo.seq);
  const progress = find((m) => m.method === 'notifications/progress');
  const sampling = find((m) => m.method === 'sampling/createMessage' && m.kind === 'request');
  const samplingAnswer = find((m) => m.kind === 'response' && m.pair === sampling.seq);

  it('gathers a call: request, response, progress, the server request inside it and its answer, the exchanges', () => {
    const v = callView(store, String(echo.seq));
    expect(v.request.seq).toBe(echo.seq);
    expect(v.response?.seq).toBe(echoResponse.seq);
    expect(v.status).toBe('answered');
    expect(v.latencyMs).toBe(30);
    expect(v.progress.map((m) => m.seq)).toEqual([progress.seq]);
    expect(v.nested).toHaveLength(1);
    expect(v.nested[0].request.seq).toBe(sampling.seq);
    expect(v.nested[0].response?.seq).toBe(samplingAnswer.seq);
    expect(v.exchanges.map((x) => [x.id, x.status])).toEqual([
      ['x4', 200],
      ['x5', 202],
    ]);
    expect(v.cancellation).toEqual([]);
    expect(v.violations).toEqual([]);
  });

  it('finds the same call from any of its messages, or from its exchange', () => {
    for (const ref of [echoResponse.seq, progress.seq, `#${echo.seq}`, ' x4 '])
      expect(callView(store, String(ref)).request.seq).toBe(echo.seq);
  });

  it('views a server request made inside a call as its own call, naming the parent', () => {
    const v = callView(store, String(sampling.seq));
    expect(v.request.seq).toBe(sampling.seq);
    expect(v.parent).toBe(echo.seq);
    expect(v.response?.seq).toBe(samplingAnswer.seq);
    expect(v.latencyMs).toBe(samplingAnswer.latencyMs);
  });

  it('says error for a JSON-RPC error, notification for a lone notification', () => {
    const failed = callView(store, 'x6');
    expect(failed.status).toBe('error');
    expect(failed.response?.error?.code).toBe(-32602);
    const note = find((m) => m.method === 'notifications/initialized');
    expect(callView(store, String(note.seq)).status).toBe('notification');
  });

  it('lists spec violations of the call and tool results with isError', () => {
    const v = recordViolatingSession();
    const view = callView(v.store, String(v.call.seq));
    expect(view.status).toBe('error');
    expect(view.response?.isError).toBe(true);
    expect(view.violations.map((p) => [p.rule, p.message])).toEqual([[VIOLATION_RULE, v.call.seq]]);
  });

  it('shows a pending call, its cancellation, and problems of its exchange', () => {
    const h = setup();
    const x1 = h.w.xid();
    h.feed([
      ...h.w.send(
        x1,
        'POST',
        '/mcp',
        { 'content-type': 'application/json' },
        json({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'slow' } }),
      ),
      h.w.head(x1, 200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'sid-9' }),
      ...h.w.chunks(x1, 'data: {not json}\n\n'),
    ]);
    const req = h.store.snapshot().find((e): e is MessageEvent => e.type === 'message' && e.kind === 'request')!;
    let v = callView(h.store, String(req.seq));
    expect(v.status).toBe('pending');
    expect(v.problems.map((p) => p.code)).toContain('invalid-json');
    const x2 = h.w.xid();
    h.feed([
      ...h.w.send(
        x2,
        'POST',
        '/mcp',
        { 'content-type': 'application/json', 'mcp-session-id': 'sid-9' },
        json({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9, reason: 'too slow' } }),
      ),
      ...h.w.reply(x2, 202, {}),
    ]);
    v = callView(h.store, String(req.seq));
    expect(v.status).toBe('cancelled');
    expect(v.cancellation.map((m) => m.method)).toEqual(['notifications/cancelled']);
  });

  it('says http-error for a call whose HTTP request failed without a JSON-RPC answer', () => {
    const h = setup();
    const x = h.w.xid();
    h.feed([
      ...h.w.send(x, 'POST', '/mcp', { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 1, method: 'tools/list' })),
      ...h.w.reply(x, 503, { 'content-type': 'text/plain' }, 'upstream is down'),
    ]);
    const v = callView(h.store, 'x1');
    expect(v.status).toBe('http-error');
    expect(v.exchanges.map((e) => [e.status, e.responsePreview])).toEqual([[503, 'upstream is down']]);
  });

  it('keeps at most 50 progress notifications, violations and problems (the first and last ones), saying how many it left out', () => {
    const h = setup();
    // Two earlier calls: their problems are not this call's.
    for (const id of [1, 2]) {
      const x = h.w.xid();
      h.feed([
        ...h.w.send(x, 'POST', '/mcp', { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id, method: 'ping' })),
        h.w.head(x, 200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'sid-1' }),
        ...h.w.chunks(x, 'data: {not json}\n\n'),
        h.w.end(x),
      ]);
    }
    // A request nested deeper than mcpscope keeps: its own `too-deep` problem comes just before it.
    let deep: unknown = 'bottom';
    for (let i = 0; i < 140; i++) deep = { d: deep };
    const x = h.w.xid();
    const request = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'long', arguments: { deep }, _meta: { progressToken: 't' } },
    };
    // 60 progress notifications that never increase (59 spec violations), 60 frames that are not JSON.
    const frames = Array.from(
      { length: 60 },
      (_, i) =>
        sse(
          `data: ${json({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1, message: `step ${i}` } })}`,
        ) + sse('data: {not json}'),
    ).join('');
    h.feed([
      ...h.w.send(x, 'POST', '/mcp', { 'content-type': 'application/json', 'mcp-session-id': 'sid-1' }, json(request)),
      h.w.head(x, 200, { 'content-type': 'text/event-stream' }),
      ...h.w.chunks(x, frames + sse(`data: ${json({ jsonrpc: '2.0', id: 7, result: { content: [] } })}`)),
      h.w.end(x),
    ]);
    const req = messages(h.store).find((m) => m.kind === 'request' && m.method === 'tools/call')!;
    const v = callView(h.store, String(req.seq));
    expect(v.status).toBe('answered');
    expect(v.progress).toHaveLength(CALL_VIEW_MAX_PROGRESS);
    expect(v.progressOmitted).toBe(10);
    expect(v.progress.map((m) => m.progress?.message)).toEqual([
      ...Array.from({ length: 25 }, (_, i) => `step ${i}`),
      ...Array.from({ length: 25 }, (_, i) => `step ${35 + i}`),
    ]);
    expect(v.violations).toHaveLength(CALL_VIEW_MAX_VIOLATIONS);
    expect(v.violationsOmitted).toBe(9);
    expect(new Set(v.violations.map((p) => p.rule))).toEqual(new Set(['progress/not-increasing']));
    expect(v.problems).toHaveLength(CALL_VIEW_MAX_PROBLEMS);
    expect(v.problemsOmitted).toBe(11);
    expect(v.problems[0].code).toBe('too-deep');
    expect(v.problems.slice(1).every((p) => p.code === 'invalid-json' && p.exchangeId === x)).toBe(true);
  });

  it('refuses refs it cannot resolve, in plain words', () => {
    const cases: [string, number, RegExp][] = [
      ['999999', 404, /No message #999999/],
      ['x999', 404, /No message seq or exchange "x999"/],
      ['', 400, /Name a call by a message seq/],
      ['x'.repeat(300), 400, /Name a call/],
      // The OAuth token exchange carried no JSON-RPC message.
      ['x9', 404, /carried no JSON-RPC message/],
    ];
    for (const [ref, status, message] of cases) {
      let err: unknown;
      try {
        callView(store, ref);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(McpscopeError);
      expect((err as McpscopeError).status).toBe(status);
      expect((err as McpscopeError).code).toBe(status === 404 ? 'NO_CALL' : 'BAD_CALL_REF');
      expect((err as Error).message).toMatch(message);
    }
  });
});
