/**
 * `--log`: the annotated log (proxy/files/export/log-writer.ts), every exchange and message as it
 * is recorded, to stdout, stderr or a file (0600), as text or JSON lines, redacted as exports are.
 * A log file that cannot be opened fails the launch.
 */
import type { EventStore } from '../../recorder/store/event-store.js';
import type { McpscopeAddon } from '../addon.js';

export interface LogOptions {
  to: 'stdout' | 'stderr' | string;
  format?: 'text' | 'json';
  colour?: boolean;
}

export function logAddon(o: { store: EventStore; log: LogOptions; token: string }): McpscopeAddon {
  let writer: { close(): Promise<void> } | undefined;
  return {
    name: 'log',
    async start() {
      const { startLogWriter } = await import('../../files/export/log-writer.js');
      const to = o.log.to;
      writer = startLogWriter(o.store, {
        to: to === 'stdout' || to === 'stderr' ? to : { file: to },
        format: o.log.format,
        colour: o.log.colour,
        token: o.token,
      });
    },
    close: () => writer?.close(),
  };
}
