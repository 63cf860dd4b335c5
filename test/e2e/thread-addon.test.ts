// The proxy thread's addon seam (proxy/wire/thread/thread-addon.ts) through a real worker: a test
// addon's half gets its options, each rule list and its link's messages; its messages and the
// rules it used up come back to its link; its link hears when the thread ends.
import { describe, expect, it } from 'vitest';
import { startProxyThread } from '../../proxy/wire/thread/proxy-thread.js';
import type { AddonThread, MirroredRules } from '../../proxy/wire/thread/thread-addon.js';

function fakeRules(initial: unknown[]): MirroredRules & { set(e: unknown[]): void; taken: [string, number][] } {
  let list = initial;
  const listeners = new Set<() => void>();
  const taken: [string, number][] = [];
  return {
    get size() {
      return list.length;
    },
    entries: () => list,
    onChange(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    removeTaken: (id, serial) => void taken.push([id, serial]),
    set(e) {
      list = e;
      for (const l of listeners) l();
    },
    taken,
  };
}

describe('the proxy thread carries an addon it does not know', () => {
  it('options, rules, messages both ways, rule-taken and the end of the thread reach the right end', async () => {
    const heard: unknown[] = [];
    const waiters: { test: (m: unknown) => boolean; done: () => void }[] = [];
    const hear = (test: (m: unknown) => boolean) => new Promise<void>((done) => (heard.some(test) ? done() : waiters.push({ test, done })));
    const rules = fakeRules([{ rule: { id: 'a' }, serial: 1 }]);
    let thread: AddonThread | undefined;
    const ended: AddonThread[] = [];
    const proxy = await startProxyThread(
      { upstreams: [], maxBodyBytes: 1024 },
      {
        entry: new URL('../support/echo-thread-entry.js', import.meta.url),
        capture: () => undefined,
        addons: [
          {
            name: 'echo',
            threadOptions: { holdMs: 7 },
            rules,
            receive(body, t) {
              thread = t;
              heard.push(body);
              for (const w of waiters.filter((w) => w.test(body))) w.done();
            },
            ended: (t) => void ended.push(t),
          },
          // A link with no half on the thread: its messages are dropped there, nothing fails.
          { name: 'absent', rules: fakeRules([{ rule: { id: 'x' }, serial: 1 }]) },
        ],
      },
    );
    const kind = (k: string) => (m: unknown) => (m as { kind: string }).kind === k;
    await hear(kind('started'));
    expect(heard[0]).toEqual({ kind: 'started', options: { holdMs: 7 } });
    // The rules present at the start are sent once the ports listen.
    await hear((m) => kind('rules')(m) && (m as { entries: unknown[] }).entries.length === 1);
    rules.set([]);
    await hear((m) => kind('rules')(m) && (m as { entries: unknown[] }).entries.length === 0);
    thread!.tell({ hello: 1 });
    await hear(kind('echo'));
    expect(heard.find(kind('echo'))).toEqual({ kind: 'echo', body: { hello: 1 } });
    thread!.tell({ take: { id: 'a', serial: 1 } });
    await proxy.settle();
    expect(rules.taken).toEqual([['a', 1]]);
    await proxy.close();
    expect(ended).toEqual([thread]);
  });
});
