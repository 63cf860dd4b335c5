/**
 * The addons' proxy-thread halves, in the order their steps run at each wire stage (a held
 * request is held before a fault acts on it). The proxy worker's entry
 * (proxy/app/proxy-worker-entry.ts) runs them; each has a main-thread link of the same name in
 * the addon list (default-addons.ts). Only wire/ folders are imported here: the proxy thread
 * loads no main-thread module.
 */
import type { ThreadAddon } from '../wire/thread/thread-addon.js';
import { breakpointsThread } from './breakpoints/wire/breakpoints-thread.js';
import { faultsThread } from './faults/wire/faults-thread.js';

export const THREAD_ADDONS: readonly ThreadAddon[] = [breakpointsThread, faultsThread];
