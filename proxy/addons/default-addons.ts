/**
 * The one list of main-thread addons (mitmproxy's default_addons()), in the order startMcpscope
 * starts them: the outputs first (a record file or log that cannot be opened fails the launch
 * before anything listens), then telemetry, the session-id view, and the features with routes and
 * proxy-thread halves (their halves: thread-addons.ts). startMcpscope closes them in reverse order.
 * Each is built only when its option asks for it; faults and breakpoints are always there (off
 * until a rule is added).
 */
import type { EventStore } from '../recorder/store/event-store.js';
import type { WireSessionKey } from '../core/rules/breakpoint-types.js';
import type { McpscopeAddon } from './addon.js';
import { breakpointsAddon, type BreakpointsAddon, type BreakpointsAddonOptions } from './breakpoints/breakpoints-addon.js';
import { faultsAddon, type FaultsAddon } from './faults/faults-addon.js';
import { logAddon, type LogOptions } from './log/log-addon.js';
import { recordFileAddon } from './record-file/record-file-addon.js';
import { sendAddon } from './send/send-addon.js';
import type { SessionSendDeps } from './send/session-send.js';
import { sessionIdsAddon, type SessionIdsAddon } from './session-ids/session-ids-addon.js';
import type { OtlpConfig } from './telemetry/otlp-options.js';
import { telemetryAddon, type TelemetryAddon } from './telemetry/telemetry-addon.js';

/** The options the addons read (McpscopeOptions' fields of the same names, proxy/app/mcpscope.ts). */
export interface AddonOptions {
  recordFile?: string;
  log?: LogOptions;
  otlp?: OtlpConfig;
  hashSessionIds?: boolean;
  holdMs?: number;
  onNotice?: (line: string) => void;
}

/** What the addons are given by the mcpscope they run in. */
export interface AddonHost {
  store: EventStore;
  token: string;
  /** Runs the recorder on what was captured so far. */
  flush(): void;
  /** Resolves once the proxy thread (if any) has the current rules. */
  threadApplied(): Promise<void>;
  /** Resolves once every stdio wrapper linked to the UI has the current rules. */
  wrappersApplied(): Promise<void>;
  /** The recorder's answers the held-message registry needs. */
  paused: Pick<BreakpointsAddonOptions, 'locate' | 'emit' | 'redact'>;
  resolveSession(sessionId: string): WireSessionKey | undefined;
  /** The send addon's dependencies, read when the routes are made (the proxy ports are known then), less the session-id view. */
  send(): Omit<SessionSendDeps, 'realSessionId'>;
}

export interface DefaultAddons {
  /** Every addon, in start order. */
  list: McpscopeAddon[];
  faults: FaultsAddon;
  breakpoints: BreakpointsAddon;
  telemetry?: TelemetryAddon;
  sessionIds?: SessionIdsAddon;
}

export function defaultAddons(options: AddonOptions, host: AddonHost): DefaultAddons {
  const { store, token } = host;
  const telemetry = options.otlp ? telemetryAddon({ store, config: options.otlp, token, onNotice: options.onNotice }) : undefined;
  const sessionIds = options.hashSessionIds ? sessionIdsAddon() : undefined;
  const faults = faultsAddon({ applied: host.threadApplied });
  const breakpoints = breakpointsAddon({
    ...host.paused,
    resolveSession: host.resolveSession,
    flush: host.flush,
    applied: async () => {
      await host.threadApplied();
      await host.wrappersApplied();
    },
    holdMs: options.holdMs,
    hashSessionIds: options.hashSessionIds,
  });
  const list: (McpscopeAddon | undefined)[] = [
    options.recordFile ? recordFileAddon({ store, path: options.recordFile, token }) : undefined,
    options.log ? logAddon({ store, log: options.log, token }) : undefined,
    telemetry,
    sessionIds,
    faults,
    breakpoints,
    sendAddon(() => ({ ...host.send(), realSessionId: sessionIds?.real })),
  ];
  return { list: list.filter((a): a is McpscopeAddon => a !== undefined), faults, breakpoints, telemetry, sessionIds };
}
