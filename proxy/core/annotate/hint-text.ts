/**
 * The small readers and phrasings every message hint uses: typed reads of untrusted JSON (never
 * throwing), clipped quotes, plurals, capabilities and peers in words. Pure and I/O-free (also
 * bundled into the browser UI).
 */
import type { Hint } from '../model/events.js';

// ---------------------------------------------------------------------------------------------
// Small readers

export type Obj = Record<string, unknown>;

export function obj(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function arr(v: unknown): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

export function clip(s: string, max = 80): string {
  const oneLine = s.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/** A wire value quoted for a hint: `"name"`, clipped. */
export function q(s: string, max = 80): string {
  return `"${clip(s, max)}"`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function joinNames(names: string[], max = 5): string {
  const shown = names.slice(0, max).map((n) => clip(n, 40));
  const rest = names.length - shown.length;
  return rest > 0 ? `${shown.join(', ')} and ${rest} more` : shown.join(', ');
}

export function idText(v: unknown): string {
  if (typeof v === 'string') return q(v, 40);
  if (typeof v === 'number') return String(v);
  return 'with an unreadable id';
}

export function snippet(v: unknown, max = 80): string {
  if (typeof v === 'string') return q(v, max);
  try {
    const s = JSON.stringify(v);
    return s === undefined ? String(v) : clip(s, max);
  } catch {
    return '(unprintable)';
  }
}

export function clientCapabilitiesText(caps: unknown): string {
  const c = obj(caps);
  if (c === undefined) return 'no capabilities (the "capabilities" object is missing)';
  const parts: string[] = [];
  const roots = obj(c.roots);
  if (roots) parts.push(roots.listChanged === true ? 'roots (with list_changed)' : 'roots');
  const sampling = obj(c.sampling);
  if (sampling) {
    const extra = [sampling.tools !== undefined ? 'tools' : '', sampling.context !== undefined ? 'context' : ''].filter(Boolean);
    parts.push(extra.length ? `sampling (with ${extra.join(', ')})` : 'sampling');
  }
  const elicitation = obj(c.elicitation);
  if (elicitation) {
    const modes: string[] = [];
    if (elicitation.form !== undefined || elicitation.url === undefined) modes.push('form');
    if (elicitation.url !== undefined) modes.push('url');
    parts.push(`elicitation (${modes.join(', ')})`);
  }
  if (obj(c.tasks)) parts.push('tasks');
  parts.push(...openEndedKeys(c));
  return parts.length ? parts.join(', ') : 'no optional client features';
}

export function serverCapabilitiesText(caps: unknown): string {
  const c = obj(caps);
  if (c === undefined) return 'no capabilities (the "capabilities" object is missing)';
  const parts: string[] = [];
  const listChanged = (o: Obj): string[] => (o.listChanged === true ? ['list_changed'] : []);
  const tools = obj(c.tools);
  if (tools) parts.push(withFlags('tools', listChanged(tools)));
  const resources = obj(c.resources);
  if (resources) parts.push(withFlags('resources', [...(resources.subscribe === true ? ['subscribe'] : []), ...listChanged(resources)]));
  const prompts = obj(c.prompts);
  if (prompts) parts.push(withFlags('prompts', listChanged(prompts)));
  if (obj(c.logging)) parts.push('logging');
  if (obj(c.completions)) parts.push('completions');
  if (obj(c.tasks)) parts.push('tasks');
  parts.push(...openEndedKeys(c));
  return parts.length ? parts.join(', ') : 'no features (no tools, resources or prompts)';
}

/** `experimental (…)` and `extensions (…)`: the open-ended capability objects either side may declare, by their keys. */
function openEndedKeys(c: Obj): string[] {
  const out: string[] = [];
  for (const name of ['experimental', 'extensions'] as const) {
    const keys = Object.keys(obj(c[name]) ?? {});
    if (keys.length) out.push(`${name} (${joinNames(keys, 3)})`);
  }
  return out;
}

function withFlags(name: string, flags: string[]): string {
  return flags.length ? `${name} (${flags.join(', ')})` : name;
}

export function peerText(info: unknown): string | undefined {
  const i = obj(info);
  const name = str(i?.name);
  if (name === undefined) return undefined;
  const version = str(i?.version);
  return q(version ? `${name} ${version}` : name, 60);
}

export function namesOf(list: unknown[], key: string): string[] {
  return list.map((x) => str(obj(x)?.[key])).filter((x): x is string => x !== undefined);
}

/** The host of a URL, for a short mention. */
export function hostOf(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i.exec(url);
  return m ? clip(m[1], 60) : clip(url, 60);
}

export const info = (code: string, text: string): Hint => ({ level: 'info', code, text });
export const warn = (code: string, text: string): Hint => ({ level: 'warn', code, text });
