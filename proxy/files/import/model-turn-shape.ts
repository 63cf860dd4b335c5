/**
 * Whether a loaded model turn (an NDJSON `model-turn` event's `turn`, a fixture's `modelTurns`
 * entry) has the shape proxy/core/model/model-turn.ts gives it, deep enough that every reader (the UI,
 * the annotated log, `mcpscope mcp`, OTLP, the exports) can walk it without a guard of its own:
 * the lists are lists, the fields they index are the types they use. A capture file is untrusted
 * input: what does not fit is refused in plain words (import-ndjson.ts, import-fixture.ts), never
 * passed on to crash a reader.
 */

type Obj = Record<string, unknown>;

const STATUSES = new Set(['pending', 'done', 'cut', 'error']);
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const KINDS = new Set(['text', 'thinking', 'tool-use', 'tool-result', 'image', 'document', 'other']);
const USAGE_KEYS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens', 'totalInputTokens'] as const;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const optNum = (v: unknown) => v === undefined || isNum(v);
const optStr = (v: unknown) => v === undefined || typeof v === 'string';

/** Why `v` is not a model turn (a phrase after "its turn …"), or undefined when it is one. */
export function modelTurnProblem(v: unknown): string | undefined {
  if (!isObj(v)) return 'is not an object';
  for (const k of ['id', 'exchangeId', 'sessionId', 'api', 'client', 'agent', 'endpoint'] as const)
    if (typeof v[k] !== 'string') return `has no string "${k}"`;
  if (typeof v.status !== 'string' || !STATUSES.has(v.status)) return `has an unknown "status" (${short(v.status)})`;
  if (!isNum(v.startedAt)) return 'has no numeric "startedAt"';
  for (const k of ['respondedAt', 'firstTokenAt', 'endedAt', 'maxTokens'] as const)
    if (!optNum(v[k])) return `has a "${k}" that is not a number`;
  if (!isNum(v.messageCount) || !isNum(v.messagesFrom)) return 'has no numeric "messageCount" and "messagesFrom"';
  for (const k of ['model', 'error', 'stopReason', 'toolChoice'] as const) if (!optStr(v[k])) return `has a "${k}" that is not a string`;
  if (typeof v.stream !== 'boolean') return 'has no boolean "stream"';
  if (v.usage !== undefined) {
    if (!isObj(v.usage)) return 'has a "usage" that is not an object';
    for (const k of USAGE_KEYS) if (!optNum(v.usage[k])) return `has a usage.${k} that is not a number`;
  }
  if (v.system !== undefined && entryProblem(v.system)) return `has a "system" entry that ${entryProblem(v.system)}`;
  for (const k of ['messages', 'output'] as const) {
    const list = v[k];
    if (!Array.isArray(list)) return `has no "${k}" list`;
    const i = list.findIndex((e) => entryProblem(e) !== undefined);
    if (i >= 0) return `has a ${k}[${i}] that ${entryProblem(list[i])}`;
  }
  return (
    listProblem(v, 'tools', toolProblem) ??
    listProblem(v, 'toolCalls', callProblem) ??
    listProblem(v, 'toolResults', resultProblem) ??
    hintsProblem(v.hints) ??
    contextProblem(v.context)
  );
}

/** Why `v` is not a `modelCall` link of a message event, or undefined. */
export function modelCallProblem(v: unknown): string | undefined {
  if (!isObj(v) || typeof v.turn !== 'string' || typeof v.callId !== 'string' || typeof v.name !== 'string')
    return 'has a "modelCall" without string turn, callId and name';
  return undefined;
}

function listProblem(v: Obj, key: string, item: (e: unknown) => string | undefined): string | undefined {
  const list = v[key];
  if (!Array.isArray(list)) return `has no "${key}" list`;
  for (let i = 0; i < list.length; i++) {
    const p = item(list[i]);
    if (p) return `has a ${key}[${i}] that ${p}`;
  }
  return undefined;
}

function entryProblem(e: unknown): string | undefined {
  if (!isObj(e)) return 'is not an object';
  if (typeof e.role !== 'string' || !ROLES.has(e.role)) return `has an unknown role (${short(e.role)})`;
  if (typeof e.kind !== 'string' || !KINDS.has(e.kind)) return `has an unknown kind (${short(e.kind)})`;
  if (typeof e.text !== 'string') return 'has no string "text"';
  if (!isNum(e.bytes)) return 'has no numeric "bytes"';
  if (!optStr(e.callId) || !optStr(e.name)) return 'has a callId or name that is not a string';
  return undefined;
}

function toolProblem(t: unknown): string | undefined {
  if (!isObj(t) || typeof t.name !== 'string') return 'has no string "name"';
  for (const k of ['descriptionBytes', 'schemaBytes', 'descriptionTokens', 'schemaTokens'] as const)
    if (!isNum(t[k])) return `has no numeric "${k}"`;
  if (!optStr(t.server) || !optStr(t.tool)) return 'has a server or tool that is not a string';
  return undefined;
}

function refProblem(r: unknown): boolean {
  return r !== undefined && !(isObj(r) && typeof r.sessionId === 'string' && isNum(r.seq));
}

function callProblem(c: unknown): string | undefined {
  if (!isObj(c) || typeof c.id !== 'string' || typeof c.name !== 'string') return 'has no string "id" and "name"';
  for (const k of ['server', 'tool', 'argumentsText', 'argumentsError', 'resultTurn'] as const)
    if (!optStr(c[k])) return `has a "${k}" that is not a string`;
  if (refProblem(c.mcpCall) || refProblem(c.mcpResult)) return 'has an mcpCall or mcpResult that is not {sessionId, seq}';
  return undefined;
}

function resultProblem(r: unknown): string | undefined {
  if (!isObj(r) || typeof r.callId !== 'string') return 'has no string "callId"';
  if (!isNum(r.bytes)) return 'has no numeric "bytes"';
  if (!optStr(r.fromTurn) || !optStr(r.note)) return 'has a fromTurn or note that is not a string';
  if (refProblem(r.mcpResult)) return 'has an mcpResult that is not {sessionId, seq}';
  return undefined;
}

function hintsProblem(hints: unknown): string | undefined {
  if (!Array.isArray(hints)) return 'has no "hints" list';
  const i = hints.findIndex((h) => !isObj(h) || typeof h.code !== 'string' || typeof h.text !== 'string' || typeof h.level !== 'string');
  return i >= 0 ? `has a hints[${i}] without level, code and text` : undefined;
}

function contextProblem(c: unknown): string | undefined {
  if (c === undefined) return undefined;
  if (!isObj(c) || typeof c.encoding !== 'string') return 'has a "context" without a string encoding';
  for (const k of ['requestBytes', 'toolsBytes', 'toolsTokens'] as const) if (!isNum(c[k])) return `has no numeric context.${k}`;
  if (!Array.isArray(c.servers)) return 'has no context.servers list';
  for (let i = 0; i < c.servers.length; i++) {
    const s: unknown = c.servers[i];
    if (!isObj(s) || typeof s.server !== 'string') return `has a context.servers[${i}] without a string server`;
    for (const k of ['tools', 'bytes', 'tokens', 'descriptionTokens', 'schemaTokens'] as const)
      if (!isNum(s[k])) return `has a context.servers[${i}] without a numeric ${k}`;
    if (!optNum(s.instructionsTokens) || !optNum(s.share) || !optStr(s.sessionId)) return `has a context.servers[${i}] of the wrong shape`;
  }
  return undefined;
}

/** A value quoted for a message, bounded: the file's text is nobody's to print at length. */
function short(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}
