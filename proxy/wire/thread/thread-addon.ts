/**
 * The seam between the proxy thread and the addons that act on its traffic (breakpoints, faults):
 * each addon has a proxy-thread half (its wire steps, the rules it mirrors, its own messages) and
 * a main-thread link (the rules it sends, what it does with its half's messages). The thread
 * (proxy-worker.ts) and its starter (proxy-thread.ts) carry both generically — `rules`,
 * `rule-taken` and `addon` messages naming the addon — and import no feature: the list of halves
 * is given by the worker's entry (proxy/app/proxy-worker-entry.ts).
 */
import type { WireRecord } from '../capture/wire-records.js';
import type { WireAddon } from '../stages.js';

/** What an addon's proxy-thread half is given when the thread starts. */
export interface ThreadAddonContext {
  /** Its options, as its main-thread link gave them (`threadOptions`); plain data. */
  options: unknown;
  /** Hands a wire record to the capture (an O(1) push). */
  capture(record: WireRecord): void;
  /** Sends the records captured so far now (before a message that refers to their exchange). */
  flush(): void;
  /** Tells this addon's main-thread link (`body`: plain data). */
  tell(body: unknown): void;
  /** A rule of this addon's was used up (a once-rule): the main thread removes it. */
  taken(id: string, serial: number): void;
}

/** An addon's proxy-thread half, running. */
export interface ThreadAddonRunning {
  /** The steps it plugs into each proxy server. */
  steps: WireAddon;
  /** The main thread's rules, whole, after each change (mirrored: the thread never edits them). */
  rules?(entries: unknown[]): void;
  /** A message from its main-thread link. */
  receive?(body: unknown): void;
}

export interface ThreadAddon {
  /** The name its messages and options go by (the same as its main-thread link's). */
  name: string;
  start(ctx: ThreadAddonContext): ThreadAddonRunning;
}

/** The rules an addon mirrors into the proxy thread (a RuleSet, proxy/core/rules/rule-set.ts). */
export interface MirroredRules {
  readonly size: number;
  entries(): unknown[];
  /** Returns the unsubscribe. */
  onChange(listener: () => void): () => void;
  removeTaken(id: string, serial: number): void;
}

/** One running proxy thread as an addon's link sees it (a new one after a restart). */
export interface AddonThread {
  /** Tells the addon's proxy-thread half. */
  tell(body: unknown): void;
}

/** An addon's link on the main thread to its proxy-thread half. */
export interface ThreadAddonLink {
  name: string;
  /** Given to its half as `ctx.options` (plain data: it crosses as `workerData`). */
  threadOptions?: unknown;
  /** Sent to the thread when it starts (if any) and after every change; a rule the thread used up is removed. */
  rules?: MirroredRules;
  /** A message from its proxy-thread half, on `thread`. */
  receive?(body: unknown, thread: AddonThread): void;
  /** `thread` ended: what it held went with it. */
  ended?(thread: AddonThread): void;
}
