/**
 * MCP fields the recorder and the correlator read off a message: the name it is about (tool, prompt,
 * resource, task), the progress token a request asks for or a progress notification refers to, and
 * a progress notification's `{ progress, total?, message? }`.
 *
 * Parse stage: correlate and annotate both read these, so they live here rather than in annotate
 * (the flow is capture → parse → correlate → annotate).
 *
 * Pure and I/O-free (also bundled into the browser UI). Nothing here throws.
 */

import type { ProgressInfo } from '../model/events.js';

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Tool, prompt, resource or task a message is about. */
export function messageName(method: string | undefined, params: unknown): string | undefined {
  const p = obj(params);
  if (method === undefined || p === undefined) return undefined;
  switch (method) {
    case 'tools/call':
    case 'prompts/get':
      return str(p.name);
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
    case 'notifications/resources/updated':
      return str(p.uri);
    case 'completion/complete': {
      const ref = obj(p.ref);
      return ref ? (str(ref.name) ?? str(ref.uri)) : undefined;
    }
    default:
      if (method.startsWith('tasks/') || method === 'notifications/tasks/status') return str(p.taskId);
      return undefined;
  }
}

/** The progress token a request asks for: `params._meta.progressToken`. */
export function progressTokenOf(params: unknown): string | number | undefined {
  const meta = obj(obj(params)?._meta);
  return tokenValue(meta?.progressToken);
}

/** The token a `notifications/progress` refers to: `params.progressToken`. */
export function progressNotificationTokenOf(params: unknown): string | number | undefined {
  return tokenValue(obj(params)?.progressToken);
}

function tokenValue(v: unknown): string | number | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  return undefined;
}

/** `{ progress, total?, message? }` of a `notifications/progress`; `undefined` for anything else or when `progress` is not a number. */
export function progressOf(method: string | undefined, params: unknown): ProgressInfo | undefined {
  if (method !== 'notifications/progress') return undefined;
  const p = obj(params);
  const progress = num(p?.progress);
  if (p === undefined || progress === undefined) return undefined;
  const info: ProgressInfo = { progress };
  const total = num(p.total);
  if (total !== undefined) info.total = total;
  const message = str(p.message);
  if (message !== undefined) info.message = message;
  return info;
}
