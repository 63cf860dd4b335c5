/**
 * `--record <file>`: every event appended to an NDJSON file as it is recorded
 * (proxy/files/export/ndjson-recorder.ts), redacted like every export whatever `--show-secrets`
 * says for the UI. First in the list: a path that cannot be written fails the launch before
 * anything listens.
 */
import type { EventStore } from '../../recorder/store/event-store.js';
import type { McpscopeAddon } from '../addon.js';

export function recordFileAddon(o: { store: EventStore; path: string; token: string }): McpscopeAddon {
  let stop: (() => void) | undefined;
  return {
    name: 'record-file',
    async start() {
      const [{ recordToFile }, { exportRedactor }] = await Promise.all([
        import('../../files/export/ndjson-recorder.js'),
        import('../../files/export/export-common.js'),
      ]);
      stop = recordToFile(o.store, o.path, { redactor: exportRedactor({ token: o.token }) });
    },
    close: () => stop?.(),
  };
}
