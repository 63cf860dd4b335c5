/**
 * Calling tools from the UI: a tool's `inputSchema` (from the session's last
 * `tools/list` result) read as form fields in the manner of the MCP Inspector, a light check of
 * arguments against the schema (type, required, enum, properties — a hand-written subset of JSON
 * Schema, enough to catch a typo before it reaches the server), and `POST api/sessions/:id/send`.
 */
import { apiFetch } from './api.js';

/** The part of JSON Schema the form and the check read. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  title?: string;
  enum?: unknown[];
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
}

/** A tool as `tools/list` describes it. */
export interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: JsonSchema;
}

export type FieldKind = 'string' | 'enum' | 'number' | 'integer' | 'boolean' | 'json';

/** One input of a tool's form. */
export interface FormField {
  name: string;
  kind: FieldKind;
  required: boolean;
  /** The schema's type in words ("string", "integer", "object", "string | null"…). */
  typeText: string;
  description?: string;
  options?: unknown[];
  /** The initial value of the input: text for text, number, enum and JSON inputs; a boolean for a checkbox. */
  initial: string | boolean;
}

export type FormValues = Record<string, string | boolean>;

function typesOf(s: JsonSchema): string[] {
  return Array.isArray(s.type) ? s.type : typeof s.type === 'string' ? [s.type] : [];
}

/** The tools a `tools/list` result lists (malformed entries skipped). */
export function toolsFrom(result: unknown): ToolInfo[] {
  const tools = (result as { tools?: unknown } | undefined)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.filter((t): t is ToolInfo => !!t && typeof t === 'object' && typeof (t as ToolInfo).name === 'string');
}

/** The form for a schema: one field per property, in the schema's order; a JSON textarea for objects, arrays and anything unusual. */
export function fieldsOf(schema: JsonSchema | undefined): FormField[] {
  const props = schema?.properties ?? {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  return Object.entries(props).map(([name, s]) => {
    const sub = s && typeof s === 'object' ? s : {};
    const types = typesOf(sub).filter((t) => t !== 'null');
    const base = { name, required: required.has(name), description: sub.description, typeText: typesOf(sub).join(' | ') || 'any' };
    const d = sub.default;
    if (Array.isArray(sub.enum) && sub.enum.length > 0) {
      const initial = d !== undefined ? JSON.stringify(d) : required.has(name) ? JSON.stringify(sub.enum[0]) : '';
      return { ...base, kind: 'enum', options: sub.enum, initial };
    }
    if (types.length === 1) {
      const t = types[0];
      if (t === 'string') return { ...base, kind: 'string', initial: typeof d === 'string' ? d : '' };
      if (t === 'number' || t === 'integer') return { ...base, kind: t, initial: typeof d === 'number' ? String(d) : '' };
      if (t === 'boolean') return { ...base, kind: 'boolean', initial: d === true };
    }
    const initial = d !== undefined ? JSON.stringify(d, null, 2) : types[0] === 'array' ? '[]' : types[0] === 'object' ? '{}' : '';
    return { ...base, kind: 'json', initial };
  });
}

/**
 * The `arguments` a filled-in form stands for, or the first input that cannot be read. Empty
 * optional inputs are left out; an empty required one is sent as what it is (the check says so).
 */
export function argsFromForm(fields: readonly FormField[], values: FormValues): { args: Record<string, unknown> } | { error: string } {
  const args: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name] ?? f.initial;
    if (f.kind === 'boolean') {
      args[f.name] = v === true;
      continue;
    }
    const text = typeof v === 'string' ? v : String(v);
    if (text.trim() === '') {
      if (f.required && f.kind === 'string') args[f.name] = '';
      continue;
    }
    if (f.kind === 'string') args[f.name] = text;
    else if (f.kind === 'number' || f.kind === 'integer') {
      const n = Number(text);
      if (!Number.isFinite(n)) return { error: `${f.name}: "${text}" is not a number` };
      args[f.name] = n;
    } else {
      try {
        args[f.name] = JSON.parse(text);
      } catch {
        if (f.kind === 'enum') args[f.name] = text;
        else return { error: `${f.name}: not valid JSON` };
      }
    }
  }
  return { args };
}

function typeOfValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function fits(v: unknown, type: string): boolean {
  const actual = typeOfValue(v);
  return actual === type || (type === 'number' && actual === 'integer');
}

/**
 * What is wrong with `value` against `schema`, in plain words (empty: nothing found). Checks
 * type, required, enum and properties, nested objects and array items included; anything else
 * JSON Schema can say is left to the server.
 */
export function checkArgs(schema: JsonSchema | undefined, value: unknown, path = 'arguments'): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const problems: string[] = [];
  const types = typesOf(schema);
  if (types.length > 0 && !types.some((t) => fits(value, t))) {
    problems.push(`${path} should be ${types.join(' or ')}, not ${typeOfValue(value)}`);
    return problems;
  }
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value)))
    problems.push(`${path} should be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const name of Array.isArray(schema.required) ? schema.required : [])
      if (!(name in obj)) problems.push(`${path}.${name} is required`);
    for (const [name, sub] of Object.entries(schema.properties ?? {}))
      if (name in obj) problems.push(...checkArgs(sub, obj[name], `${path}.${name}`));
  }
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => problems.push(...checkArgs(schema.items, item, `${path}[${i}]`)));
  return problems;
}

/** A value to insert for an argument of this schema (click-to-insert): its default, first enum value, or an empty one of its type. */
export function placeholderFor(schema: JsonSchema | undefined): unknown {
  if (!schema) return null;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (typesOf(schema).filter((t) => t !== 'null')[0]) {
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return null;
  }
}

/** A `tools/call` message with one more argument (kept when it is already there). Undefined when `message` is no `tools/call` object. */
export function withArgument(message: unknown, name: string, schema: JsonSchema | undefined): Record<string, unknown> | undefined {
  if (!message || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const m = message as Record<string, unknown>;
  const params = m.params && typeof m.params === 'object' && !Array.isArray(m.params) ? (m.params as Record<string, unknown>) : {};
  const args =
    params.arguments && typeof params.arguments === 'object' && !Array.isArray(params.arguments)
      ? (params.arguments as Record<string, unknown>)
      : {};
  if (name in args) return m;
  return { ...m, params: { ...params, arguments: { ...args, [name]: placeholderFor(schema) } } };
}

/** A message to edit and send again: the request as captured, without its id (mcpscope gives it a fresh one). */
export function resendDraft(jsonrpc: unknown): unknown {
  if (!jsonrpc || typeof jsonrpc !== 'object' || Array.isArray(jsonrpc)) return jsonrpc;
  const { id: _id, ...rest } = jsonrpc as Record<string, unknown>;
  return rest;
}

/** The message `tools/call` a tool form sends. */
export function toolCallMessage(name: string, args: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: '2.0', method: 'tools/call', params: { name, arguments: args } };
}

/** What `POST api/sessions/:id/send` answered. */
export type SendOutcome =
  { ok: true; response?: unknown; exchangeId?: string; id?: unknown; accepted?: boolean } | { ok: false; error: string; status?: number };

/** Sends a request or notification into a session through mcpscope (which gives a request its id). */
export async function sendToSession(sessionId: string, message: unknown): Promise<SendOutcome> {
  let res: Response;
  try {
    res = await apiFetch(`sessions/${encodeURIComponent(sessionId)}/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message }),
    });
  } catch (err) {
    return { ok: false, error: `mcpscope could not be reached (${(err as Error).message})` };
  }
  const body = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!res.ok || !body) {
    let error = typeof body?.error === 'string' ? body.error : `mcpscope answered HTTP ${res.status}`;
    // Fastify's own 404 (no such route): an mcpscope without the send API.
    if (res.status === 404 && error === 'Not Found') error = 'this mcpscope cannot send messages (it has no api/sessions/:id/send)';
    return { ok: false, error, status: res.status };
  }
  return {
    ok: true,
    response: body.response,
    exchangeId: typeof body.exchangeId === 'string' ? body.exchangeId : undefined,
    id: body.id,
    accepted: body.accepted === true,
  };
}
