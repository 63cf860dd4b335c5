/** A session's badge label and colour (ui/src/state/session-label.ts): the "All sessions" timeline tells interleaved sessions apart by them. */
import { describe, expect, it } from 'vitest';
import { SESSION_COLOURS, SessionLabels, sessionColour, sessionLabel } from '../../ui/src/state/session-label';
import type { SessionInfo } from '../../ui/src/state/types';

const session = (id: string, init: Partial<SessionInfo> = {}): SessionInfo => ({
  id,
  transport: 'streamable-http',
  target: 'http://127.0.0.1:3001/mcp',
  startedAt: 1,
  status: 'open',
  counts: { messages: 0, requests: 0, pending: 0, errors: 0, exchanges: 0 },
  ...init,
});

describe('session labels', () => {
  it('gives s1, s2, … the colours in turn (neighbours differ), the same for the same id, any id one of them', () => {
    expect([1, 2, 3, 8, 9].map((n) => sessionColour(`s${n}`))).toEqual([0, 1, 2, 7, 0]);
    expect(sessionColour('i3:s1')).toBe(sessionColour('i3:s1'));
    for (const id of ['', 'x', 'imported-7', 's0']) {
      const c = sessionColour(id);
      expect(c >= 0 && c < SESSION_COLOURS && Number.isInteger(c)).toBe(true);
    }
  });

  it("names the session's client, a plain HTTP bucket's host, or nothing before initialize", () => {
    expect(sessionLabel('s1', session('s1', { clientInfo: { name: 'claude-code' } }))).toMatchObject({ id: 's1', name: 'claude-code' });
    expect(sessionLabel('s2', session('s2', { transport: 'http', target: 'https://auth.example.com' })).name).toBe('auth.example.com');
    expect(sessionLabel('s3', session('s3')).name).toBeUndefined();
    expect(sessionLabel('s3', session('s3')).title).toContain('session:s3');
  });

  it('keeps the same map (and label objects) until a session appears or learns its names', () => {
    const labels = new SessionLabels();
    const a = labels.of([session('s1'), session('s2')]);
    // Counts change with every batch: the labels do not.
    expect(labels.of([session('s1', { counts: { messages: 9, requests: 3, pending: 1, errors: 0, exchanges: 4 } }), session('s2')])).toBe(
      a,
    );
    const b = labels.of([session('s1', { clientInfo: { name: 'alpha' } }), session('s2')]);
    expect(b).not.toBe(a);
    expect(b.get('s1')?.name).toBe('alpha');
    expect(labels.of([session('s1', { clientInfo: { name: 'alpha' } }), session('s2'), session('s3')]).size).toBe(3);
  });
});
