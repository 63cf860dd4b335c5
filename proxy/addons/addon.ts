/**
 * What an addon is to the main thread (mitmproxy's addons, fastify's plugins): a feature that
 * startMcpscope (proxy/app/mcpscope.ts) runs from one list (default-addons.ts) through the same
 * lifecycle — `start` in the list's order before the proxy thread starts, its link to its
 * proxy-thread half handed to the thread, its routes registered on the UI server, `close` in
 * reverse order on shutdown or when a later step of the launch fails.
 */
import type { FastifyInstance } from 'fastify';
import type { WireRecord } from '../wire/capture/wire-records.js';
import type { ThreadAddonLink } from '../wire/thread/thread-addon.js';

export interface McpscopeAddon {
  /** Its name (also its proxy-thread half's, when it has one). */
  readonly name: string;
  /** Opens what it needs; a throw fails the launch (the addons before it are closed, in reverse order). */
  start?(): Promise<void> | void;
  /** Its link to its proxy-thread half (proxy/wire/thread/thread-addon.ts). */
  readonly thread?: ThreadAddonLink;
  /** Turns each captured record before the recorder sees it (off the hot path, in the capture queue's batch). */
  readonly recordView?: (record: WireRecord) => WireRecord;
  /** Its routes on the UI port, made once the proxy thread runs (they may use its ports). */
  routes?(): (app: FastifyInstance) => void | Promise<void>;
  /** Closes what `start` opened (each addon's close runs once, the last started first; `launchFailed`: nothing to wait for). */
  close?(how: { launchFailed: boolean }): Promise<void> | void;
}

/** The addons of one mcpscope, started: `close` ends them in reverse order. */
export interface StartedAddons {
  close(how?: { launchFailed: boolean }): Promise<void>;
}

/**
 * Starts `addons` in order. If one fails, those already started are closed, last first, and
 * the failure is thrown.
 */
export async function startAddons(addons: readonly McpscopeAddon[]): Promise<StartedAddons> {
  const started: McpscopeAddon[] = [];
  const close = async (how = { launchFailed: false }) => {
    while (started.length > 0) {
      const addon = started.pop()!;
      try {
        await addon.close?.(how);
      } catch (err) {
        process.emitWarning(`mcpscope: the ${addon.name} addon did not close cleanly: ${(err as Error).message}`);
      }
    }
  };
  for (const addon of addons) {
    try {
      await addon.start?.();
    } catch (err) {
      await close({ launchFailed: true });
      throw err;
    }
    started.push(addon);
  }
  return { close };
}
