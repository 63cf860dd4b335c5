/** The tokenizer thread behind context-cost estimates (proxy/recorder/token-counter.ts, token-worker.ts). */
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerTokenCounter } from '../../../proxy/recorder/token-counter.js';

const counters: WorkerTokenCounter[] = [];
afterEach(() => {
  for (const c of counters.splice(0)) c.close();
});

describe('WorkerTokenCounter', () => {
  it('counts on its own thread with o200k_base, answers from the cache after, and says when counts came', async () => {
    const c = new WorkerTokenCounter();
    counters.push(c);
    let called = 0;
    c.onCounted = () => void (called += 1);
    expect(c.count('hello world')).toBeUndefined();
    c.want(['hello world', 'Echoes back the input', 'hello world']);
    await c.settled();
    expect(c.count('hello world')).toBe(2);
    expect(c.count('Echoes back the input')).toBeGreaterThan(2);
    expect(called).toBeGreaterThan(0);
    expect(c.encoding).toBe('o200k_base (gpt-tokenizer)');
    expect(c.failed).toBeUndefined();
  });

  it('a text past 256 K characters is counted on its prefix and scaled', async () => {
    const c = new WorkerTokenCounter();
    counters.push(c);
    const unit = 'alpha beta gamma delta ';
    const long = unit.repeat(Math.ceil((600 * 1024) / unit.length));
    c.want([unit.repeat(100), long]);
    await c.settled();
    const per = c.count(unit.repeat(100))! / (unit.length * 100);
    expect(c.count(long)! / long.length).toBeCloseTo(per, 2);
  });

  it('nothing wanted: settled at once, and no thread started', async () => {
    const c = new WorkerTokenCounter();
    counters.push(c);
    await c.settled();
    expect((c as unknown as { worker?: unknown }).worker).toBeUndefined();
  });
});
