// The addon lifecycle (proxy/addons/addon.ts) and the one list (default-addons.ts): start in
// order, close in reverse, a failed start closes what started before it; every proxy-thread link
// in the list has a half of the same name on the thread (thread-addons.ts) and the other way round.
import { describe, expect, it } from 'vitest';
import { startAddons, type McpscopeAddon } from '../../../proxy/addons/addon.js';
import { defaultAddons } from '../../../proxy/addons/default-addons.js';
import { THREAD_ADDONS } from '../../../proxy/addons/thread-addons.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';

function tracked(name: string, log: string[], fail = false): McpscopeAddon {
  return {
    name,
    start: () => {
      log.push(`start ${name}`);
      if (fail) throw new Error(`${name} cannot start`);
    },
    close: ({ launchFailed }) => void log.push(`close ${name}${launchFailed ? ' (launch failed)' : ''}`),
  };
}

describe('startAddons', () => {
  it('starts in order and closes in reverse', async () => {
    const log: string[] = [];
    const started = await startAddons([tracked('a', log), tracked('b', log), tracked('c', log)]);
    await started.close();
    expect(log).toEqual(['start a', 'start b', 'start c', 'close c', 'close b', 'close a']);
    // Closing again closes nothing twice.
    await started.close();
    expect(log).toHaveLength(6);
  });

  it('a failed start closes the ones before it, last first, and throws its error', async () => {
    const log: string[] = [];
    await expect(startAddons([tracked('a', log), tracked('b', log), tracked('c', log, true), tracked('d', log)])).rejects.toThrow(
      'c cannot start',
    );
    expect(log).toEqual(['start a', 'start b', 'start c', 'close b (launch failed)', 'close a (launch failed)']);
  });
});

describe('defaultAddons', () => {
  const host = {
    store: new EventStore(),
    token: 't',
    flush: () => undefined,
    threadApplied: async () => undefined,
    wrappersApplied: async () => undefined,
    paused: { locate: () => ({}), emit: () => undefined, redact: (t: string) => t },
    resolveSession: () => undefined,
    send: () => {
      throw new Error('not read until the routes are made');
    },
  };

  it('builds only what the options ask for, outputs first', () => {
    expect(defaultAddons({}, host).list.map((a) => a.name)).toEqual(['faults', 'breakpoints', 'send']);
    const all = defaultAddons(
      {
        recordFile: '/nonexistent/x.ndjson',
        log: { to: 'stderr' },
        otlp: { endpoint: 'http://127.0.0.1:1' } as never,
        hashSessionIds: true,
      },
      host,
    );
    expect(all.list.map((a) => a.name)).toEqual(['record-file', 'log', 'telemetry', 'session-ids', 'faults', 'breakpoints', 'send']);
  });

  it('every proxy-thread link has a half of the same name on the thread, and every half a link', () => {
    const links = defaultAddons({}, host).list.flatMap((a) => (a.thread ? [a.thread.name] : []));
    expect(links.sort()).toEqual(THREAD_ADDONS.map((a) => a.name).sort());
  });
});
