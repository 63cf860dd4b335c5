/**
 * Correlation of the 2026-07-28 stateless revision (input_required retry chains, listen streams,
 * cancellation by closing a stream) and of 2025-11-25 tasks.
 */
import { describe, expect, it } from 'vitest';
import { Correlator, type CorrelateInput, type Correlation } from '../../../proxy/core/correlate/correlator.js';
import type { Direction, JsonRpcId, MessageKind } from '../../../proxy/core/model/events.js';

class Feed {
  readonly c = new Correlator();
  seq = 0;
  constructor(readonly sessionId = 'S') {}
  observe(m: Partial<CorrelateInput> & { dir: Direction; kind: MessageKind }): Correlation & { seq: number } {
    this.seq += 1;
    const out = this.c.observe(this.seq, { sessionId: this.sessionId, ts: this.seq * 10, ...m });
    return { ...out, seq: this.seq };
  }
  req(dir: Direction, id: JsonRpcId, method: string, params?: unknown, name?: string) {
    return this.observe({ dir, kind: 'request', id, method, params, name });
  }
  res(dir: Direction, id: JsonRpcId, result?: unknown) {
    return this.observe({ dir, kind: 'response', id, result });
  }
  note(dir: Direction, method: string, params?: unknown, exchangeId?: string) {
    return this.observe({ dir, kind: 'notification', method, params, exchangeId });
  }
}

const codes = (c: Correlation) => c.issues.map((h) => h.code);
const inputRequired = (requestState?: string) => ({
  resultType: 'input_required',
  inputRequests: {
    login: { method: 'elicitation/create', params: { mode: 'form', message: 'Who?', requestedSchema: { type: 'object', properties: {} } } },
  },
  ...(requestState !== undefined ? { requestState } : {}),
});
const retryParams = (requestState?: string) => ({
  name: 'deploy',
  arguments: { env: 'prod' },
  inputResponses: { login: { action: 'accept', content: { name: 'octocat' } } },
  ...(requestState !== undefined ? { requestState } : {}),
});

describe('2026-07-28 input_required retry chains', () => {
  it('links each retry to the previous attempt and the chain root, keyed by the echoed params.requestState', () => {
    const f = new Feed();
    const first = f.req('c2s', 1, 'tools/call', { name: 'deploy', arguments: { env: 'prod' } }, 'deploy');
    expect(first.chain).toBeUndefined();
    const ir1 = f.res('s2c', 1, inputRequired('state-A'));
    expect(ir1.pair).toBe(first.seq);
    expect(ir1.chain).toEqual({ root: first.seq, attempt: 1, step: 'input-required' });

    const retry1 = f.req('c2s', 2, 'tools/call', retryParams('state-A'), 'deploy');
    expect(retry1.chain).toEqual({ root: first.seq, prev: first.seq, attempt: 2 });
    expect(codes(retry1)).toContain('retry-of');
    const ir2 = f.res('s2c', 2, inputRequired('state-B'));
    expect(ir2.pair).toBe(retry1.seq);
    expect(ir2.chain).toEqual({ root: first.seq, prev: first.seq, attempt: 2, step: 'input-required' });

    const retry2 = f.req('c2s', 3, 'tools/call', retryParams('state-B'), 'deploy');
    expect(retry2.chain).toEqual({ root: first.seq, prev: retry1.seq, attempt: 3 });
    const final = f.res('s2c', 3, { resultType: 'complete', content: [{ type: 'text', text: 'deployed' }] });
    expect(final.pair).toBe(retry2.seq);
    expect(final.chain).toEqual({ root: first.seq, prev: retry1.seq, attempt: 3, step: 'final' });
    expect(f.c.pendingCount('S')).toBe(0);
  });

  it('does not link by a requestState placed in _meta, nor one that was never handed out', () => {
    const f = new Feed();
    f.req('c2s', 1, 'tools/call', { name: 'deploy' }, 'deploy');
    f.res('s2c', 1, inputRequired('state-A'));
    const wrongPlace = f.req('c2s', 2, 'tools/call', { name: 'deploy', _meta: { requestState: 'state-A' } }, 'deploy');
    expect(wrongPlace.chain).toBeUndefined();
    const unknown = f.req('c2s', 3, 'tools/call', retryParams('state-Z'), 'deploy');
    expect(unknown.chain).toBeUndefined();
    expect(codes(unknown)).toContain('retry-unmatched');
  });

  it('a requestState is used once: a second retry with the same state is not a new link', () => {
    const f = new Feed();
    const first = f.req('c2s', 1, 'tools/call', { name: 'deploy' }, 'deploy');
    f.res('s2c', 1, inputRequired('once'));
    expect(f.req('c2s', 2, 'tools/call', retryParams('once'), 'deploy').chain?.root).toBe(first.seq);
    expect(f.req('c2s', 3, 'tools/call', retryParams('once'), 'deploy').chain).toBeUndefined();
  });

  it('without a requestState, a retry with inputResponses joins the open chain of the same method and name', () => {
    const f = new Feed();
    const first = f.req('c2s', 'a', 'prompts/get', { name: 'greet' }, 'greet');
    f.res('s2c', 'a', { resultType: 'input_required', inputRequests: { r: { method: 'roots/list', params: {} } } });
    const other = f.req('c2s', 'b', 'prompts/get', { name: 'other', inputResponses: { r: { roots: [] } } }, 'other');
    expect(other.chain).toBeUndefined();
    const retry = f.req('c2s', 'c', 'prompts/get', { name: 'greet', inputResponses: { r: { roots: [] } } }, 'greet');
    expect(retry.chain).toEqual({ root: first.seq, prev: first.seq, attempt: 2 });
  });

  it('warns when a requestState is echoed on a different request', () => {
    const f = new Feed();
    f.req('c2s', 1, 'tools/call', { name: 'deploy' }, 'deploy');
    f.res('s2c', 1, inputRequired('S1'));
    const misuse = f.req('c2s', 2, 'resources/read', { uri: 'file:///x', requestState: 'S1' }, 'file:///x');
    expect(codes(misuse)).toContain('retry-mismatch');
  });

  it('chains are per session', () => {
    const c = new Correlator();
    c.observe(1, { sessionId: 'A', dir: 'c2s', kind: 'request', id: 1, method: 'tools/call', name: 't', ts: 1 });
    c.observe(2, { sessionId: 'A', dir: 's2c', kind: 'response', id: 1, result: inputRequired('st'), ts: 2 });
    const elsewhere = c.observe(3, {
      sessionId: 'B',
      dir: 'c2s',
      kind: 'request',
      id: 2,
      method: 'tools/call',
      name: 't',
      params: retryParams('st'),
      ts: 3,
    });
    expect(elsewhere.chain).toBeUndefined();
    const here = c.observe(4, {
      sessionId: 'A',
      dir: 'c2s',
      kind: 'request',
      id: 2,
      method: 'tools/call',
      name: 't',
      params: retryParams('st'),
      ts: 4,
    });
    expect(here.chain).toEqual({ root: 1, prev: 1, attempt: 2 });
  });
});

describe('2026-07-28 cancellation by closing the response stream', () => {
  it('cancels only requests still pending, once', () => {
    const f = new Feed();
    const a = f.req('c2s', 1, 'tools/call', { name: 'slow' }, 'slow');
    const b = f.req('c2s', 2, 'tools/call', { name: 'fast' }, 'fast');
    f.res('s2c', 2, { content: [] });
    expect(f.c.pendingCount('S')).toBe(1);
    expect(f.c.cancelByClose('S', [a.seq, b.seq])).toEqual([a.seq]);
    expect(f.c.pendingCount('S')).toBe(0);
    expect(f.c.cancelByClose('S', [a.seq])).toEqual([]);
    // A late answer is flagged like one after notifications/cancelled.
    expect(codes(f.res('s2c', 1, { content: [] }))).toContain('answered-after-cancel');
    expect(f.c.pendingCount('S')).toBe(0);
  });
});

describe('2026-07-28 subscriptions/listen', () => {
  it('links notifications naming the listen request in _meta subscriptionId, and endListen closes it', () => {
    const f = new Feed();
    const listen = f.req('c2s', 'L1', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    const n = f.note('s2c', 'notifications/tools/list_changed', { _meta: { 'io.modelcontextprotocol/subscriptionId': 'L1' } });
    expect(n.parent).toBe(listen.seq);
    const stray = f.note('s2c', 'notifications/tools/list_changed', { _meta: { 'io.modelcontextprotocol/subscriptionId': 'L2' } });
    expect(stray.parent).toBeUndefined();
    expect(f.c.pendingCount('S')).toBe(1);
    expect(f.c.endListen('S', [listen.seq])).toEqual([listen.seq]);
    expect(f.c.pendingCount('S')).toBe(0);
  });

  it('endListen leaves other requests alone', () => {
    const f = new Feed();
    const call = f.req('c2s', 1, 'tools/call', { name: 'x' }, 'x');
    expect(f.c.endListen('S', [call.seq])).toEqual([]);
    expect(f.c.pendingCount('S')).toBe(1);
  });
});

describe('2025-11-25 tasks', () => {
  function created() {
    const f = new Feed();
    const origin = f.req('c2s', 1, 'tools/call', { name: 'render', task: { ttl: 60000 }, _meta: { progressToken: 'p1' } }, 'render');
    const handle = f.res('s2c', 1, { task: { taskId: 'T-1', status: 'working', createdAt: '2025-11-25T00:00:00Z', ttl: 60000 } });
    return { f, origin, handle };
  }

  it('links the CreateTaskResult, tasks/get|result|cancel and their answers to the creating request', () => {
    const { f, origin, handle } = created();
    expect(handle.pair).toBe(origin.seq);
    expect(handle.task).toEqual({ id: 'T-1', origin: origin.seq });
    for (const [i, method] of ['tasks/get', 'tasks/result', 'tasks/cancel'].entries()) {
      const r = f.req('c2s', 10 + i, method, { taskId: 'T-1' });
      expect(r.task).toEqual({ id: 'T-1', origin: origin.seq });
      const a = f.res('s2c', 10 + i, { taskId: 'T-1', status: 'working' });
      expect(a.pair).toBe(r.seq);
      expect(a.task).toEqual({ id: 'T-1', origin: origin.seq });
    }
  });

  it('links notifications/tasks/status and related-task _meta in both directions', () => {
    const { f, origin } = created();
    expect(f.note('s2c', 'notifications/tasks/status', { taskId: 'T-1', status: 'completed' }).task).toEqual({
      id: 'T-1',
      origin: origin.seq,
    });
    const elicit = f.req('s2c', 0, 'elicitation/create', {
      message: 'ok?',
      _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'T-1' } },
    });
    expect(elicit.task).toEqual({ id: 'T-1', origin: origin.seq });
    const answer = f.res('c2s', 0, { action: 'accept', _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'T-1' } } });
    expect(answer.task).toEqual({ id: 'T-1', origin: origin.seq });
    // tasks/result's final answer carries related-task in the result's _meta.
    const r = f.req('c2s', 20, 'tasks/result', { taskId: 'T-1' });
    expect(f.res('s2c', 20, { content: [], _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'T-1' } } }).task?.origin).toBe(
      origin.seq,
    );
    expect(r.task?.origin).toBe(origin.seq);
  });

  it('keeps progress linked to the original request after the CreateTaskResult', () => {
    const { f, origin } = created();
    const p = f.note('s2c', 'notifications/progress', { progressToken: 'p1', progress: 3, total: 10 });
    expect(p.pair).toBe(origin.seq);
    expect(p.task).toEqual({ id: 'T-1', origin: origin.seq });
    expect(codes(p)).not.toContain('unknown-progress-token');
  });

  it('notes a task it never saw created, and an unrequested task', () => {
    const f = new Feed();
    const r = f.req('c2s', 1, 'tasks/get', { taskId: 'ghost' });
    expect(r.task).toEqual({ id: 'ghost' });
    expect(codes(r)).toContain('unknown-task');
    f.req('c2s', 2, 'tools/call', { name: 'x' }, 'x');
    expect(codes(f.res('s2c', 2, { task: { taskId: 'T-9', status: 'working' } }))).toContain('task-not-requested');
  });
});
