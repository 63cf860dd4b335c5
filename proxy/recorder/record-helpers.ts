/**
 * Small pure helpers of the recorder (proxy/recorder/recorder.ts): media types, URLs, `_meta`,
 * protocol versions, peer info and event objects (media types and byte lengths: proxy/model/).
 */
import type { SessionInfo } from '../core/model/events.js';

export function metaOf(params: unknown): Record<string, unknown> | undefined {
  const m = (params as { _meta?: unknown } | undefined)?._meta;
  return typeof m === 'object' && m !== null && !Array.isArray(m) ? (m as Record<string, unknown>) : undefined;
}

export function pathAndQuery(url: string, base: string): string | undefined {
  try {
    const u = new URL(url, base);
    return u.pathname + u.search;
  } catch {
    return undefined;
  }
}

/** The upstream's name for a new session, when the proxy has one. */
export function targetOf(ex: { targetName?: string }): Partial<SessionInfo> {
  return ex.targetName ? { targetName: ex.targetName } : {};
}

export function pickPeer(p: { name: string; version?: unknown; title?: unknown }): { name: string; version?: string; title?: string } {
  return {
    name: p.name,
    ...(typeof p.version === 'string' ? { version: p.version } : {}),
    ...(typeof p.title === 'string' ? { title: p.title } : {}),
  };
}

/** A string that shares no memory with the one it was sliced from. */
export function flatCopy(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

export function mayBeJson(text: string): boolean {
  return /^\s*[[{]/.test(text);
}

/** A copy of `o` without its undefined properties (built up, not `delete`d: that would leave a slow dictionary-mode object for the store, the feed and JSON.stringify). */
export function stripUndefined<T extends object>(o: T): T {
  const out = {} as T;
  for (const k in o) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
