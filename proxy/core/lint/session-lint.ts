/**
 * The linter's per-session state and the rules that need it: lifecycle, capabilities, tools
 * (inputSchema / outputSchema from the last tools/list), progress, cancellation, the Streamable
 * HTTP headers, elicitation's requestedSchema and pagination cursors. Every map is bounded.
 *
 * A session mcpscope joined mid-way (its first message seen is not the client's initialize) and a
 * stateless 2026-07-28 one have no lifecycle, and what they did before mcpscope saw them is
 * unknown: the rules that depend on that history (lifecycle, unknown ids and tokens, cursors)
 * stay quiet there, and capability rules need the capabilities to have been seen. So do the
 * history rules in a session of a server that assigns no Mcp-Session-Id (`grouping`): its requests
 * are grouped by client name, so two processes of one client interleave in it.
 */
import type { Direction, JsonRpcId, MessageKind } from '../model/events.js';
import type { HeaderMap } from '../model/headers.js';
import { firstHeader } from '../model/headers.js';
import { isKnownVersion, versionAtLeast } from './rules.js';
import { toolSchemas, type SchemaOutcome, type ToolSchemas as SchemaChecker } from './tool-schemas.js';
import type { Violation } from './violation.js';

export interface LintSession {
  id: string;
  /** `streamable-http` sessions are held to the Streamable HTTP header rules; others (legacy SSE, stdio) are not. */
  transport?: string;
  protocolVersion?: string;
  clientCapabilities?: Record<string, unknown>;
  serverCapabilities?: Record<string, unknown>;
  /** Set when the session's requests were grouped by client (no Mcp-Session-Id): whose request is whose is a guess. */
  grouping?: string;
}

export interface LintMessage {
  seq: number;
  dir: Direction;
  kind: MessageKind;
  method?: string;
  id?: JsonRpcId;
  /** The whole JSON-RPC message as parsed (unredacted: checked, never quoted). */
  value: unknown;
  /** For a response or error: the method of its request. */
  requestMethod?: string;
  /** The correlator's link: a response's request, a cancellation's request, a progress's request. */
  pair?: number;
  /** When it crossed the proxy (ms). */
  ts?: number;
  /** Codes of the hints the correlator gave this message (unknown-progress-token, cancel-unknown…). */
  correlatorCodes?: readonly string[];
  /** HTTP: the headers of the POST that carried this client message, on its first message only. */
  requestHeaders?: HeaderMap;
  /** HTTP: the POST carried an Mcp-Session-Id although the server (which assigns none) never gave one out. */
  unassignedSessionId?: boolean;
}

const MAX_REQUESTS = 1024;
const MAX_ANSWERED = 1024;
/** A cancellation this soon after its request's answer may have crossed it on the wire: allowed (basic/utilities/cancellation). */
export const CANCEL_RACE_MS = 1000;
const MAX_TOKENS = 256;
const MAX_TOOLS = 1000;
const MAX_CURSORS = 64;
/** Notes (what could not be checked) said per session: once per tool, schema and reason. */
const MAX_NOTES = 256;
const LIST_METHODS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'tasks/list']);

interface RequestNote {
  method: string;
  cursor?: boolean;
  tool?: string;
}
interface ToolSchemas {
  input?: unknown;
  output?: unknown;
}

const obj = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

function trim<K>(map: Map<K, unknown> | Set<K>, max: number): void {
  while (map.size > max) map.delete(map.keys().next().value as K);
}

export class SessionLint {
  /** The linter saw this session from the client's initialize on. */
  readonly fromStart: boolean;
  private initialized = false;
  private initResult = false;
  /** The seq of the client's initialize request (cancelling it is never allowed, answered or not). */
  private initializeSeq: number | undefined;
  private readonly requests = new Map<number, RequestNote>();
  /** Answered requests: seq → when their answer went by. */
  private readonly answered = new Map<number, number>();
  private readonly lastProgress = new Map<string, number>();
  private tools = new Map<string, ToolSchemas>();
  private readonly cursors = new Map<string, Set<string>>();
  private readonly noted = new Set<string>();

  constructor(
    first: { dir: Direction; kind: MessageKind; method?: string },
    private readonly schemas: SchemaChecker = toolSchemas,
  ) {
    this.fromStart = first.dir === 'c2s' && first.kind === 'request' && first.method === 'initialize';
  }

  /**
   * The session's history is all there: seen from the client's initialize, and not grouped by client
   * (concurrent clients of one name share a grouped session, each one's messages landing in the newest).
   */
  private tracked(s: LintSession): boolean {
    return this.fromStart && s.grouping === undefined;
  }

  observe(s: LintSession, m: LintMessage): Violation[] {
    const out: Violation[] = [];
    const params = obj(obj(m.value)?.params);
    if (m.kind === 'request') this.onRequest(s, m, params, out);
    else if (m.kind === 'notification') this.onNotification(s, m, params, out);
    else this.onAnswer(m, out);
    if (m.dir === 'c2s' && m.requestHeaders && s.transport === 'streamable-http') this.headers(s, m.requestHeaders, out);
    if (m.dir === 'c2s' && m.unassignedSessionId) {
      out.push({
        rule: 'http/session-id-not-assigned',
        expected: 'no Mcp-Session-Id header: this server assigns none (its initialize response had no Mcp-Session-Id)',
        text: 'The client sent an Mcp-Session-Id header, but this server never assigned one: its InitializeResult came without an Mcp-Session-Id, so the session is stateless and requests must not carry one. A server may answer an id it does not know with 404 Not Found (session expired), and the client then starts over.',
      });
    }
    return out;
  }

  private onRequest(s: LintSession, m: LintMessage, params: Record<string, unknown> | undefined, out: Violation[]): void {
    const method = m.method ?? '';
    if (m.dir === 'c2s' && method === 'initialize') this.initializeSeq = m.seq;
    const note: RequestNote = { method };
    this.requests.set(m.seq, note);
    trim(this.requests, MAX_REQUESTS);
    // A token is unique among requests in flight only: a new request may reuse a finished one's, and its progress starts over.
    const token = obj(params?._meta)?.progressToken;
    if (typeof token === 'string' || typeof token === 'number')
      this.lastProgress.delete(`${m.dir === 'c2s' ? 's2c' : 'c2s'}|${typeof token}|${token}`);
    if (m.dir === 'c2s') {
      if (this.tracked(s) && !this.initialized && method !== 'initialize' && method !== 'ping') {
        out.push({
          rule: 'lifecycle/request-before-initialized',
          expected: 'notifications/initialized before any request but ping',
          text: `The client sent ${method} before notifications/initialized. Until the client says it is initialized, a server may refuse every request but ping (the SDK server answers it normally, stricter servers with an error).`,
        });
      }
      this.serverCapability(s, method, out);
      if (LIST_METHODS.has(method) && typeof params?.cursor === 'string') {
        note.cursor = true;
        if (this.tracked(s) && !this.cursors.get(method)?.has(params.cursor)) {
          out.push({
            rule: 'pagination/cursor-not-issued',
            path: '/params/cursor',
            expected: `a nextCursor the server returned for ${method} in this session`,
            text: `The client sent ${method} with a cursor that no ${method} result of this session returned as nextCursor (a cursor used after the last page, made up, or kept from another session). Cursors are opaque: a server answers an unknown one with an error (-32602).`,
          });
        }
      }
      if (method === 'tools/call' && typeof params?.name === 'string') {
        note.tool = params.name;
        const tool = this.tools.get(params.name);
        if (tool?.input !== undefined) {
          const checked = this.schemas.check(tool.input, params.arguments ?? {}, '/params/arguments');
          this.notChecked(
            checked,
            `${params.name}|input`,
            '/params/arguments',
            `the arguments of tools/call ${JSON.stringify(params.name)} against the tool's inputSchema`,
            out,
          );
          const err = checked.error;
          if (err) {
            out.push({
              rule: 'tools/arguments-schema',
              ...err,
              text: `The arguments of tools/call ${JSON.stringify(params.name)} do not match the tool's inputSchema (from tools/list): at ${err.path}, expected ${err.expected}. An SDK server validates them and answers with an error instead of running the tool.`,
            });
          }
        }
      }
    } else {
      if (this.tracked(s) && !this.initialized && method !== 'ping') {
        out.push({
          rule: 'lifecycle/server-request-before-initialized',
          expected: 'no server request but ping before notifications/initialized',
          text: `The server sent ${method} before the client's notifications/initialized. A client that is not initialized yet may not be ready to answer it.`,
        });
      }
      this.clientCapability(s, method, params, out);
      if (method === 'elicitation/create') elicitationSchema(params, out);
    }
  }

  private onNotification(s: LintSession, m: LintMessage, params: Record<string, unknown> | undefined, out: Violation[]): void {
    const method = m.method ?? '';
    const codes = m.correlatorCodes ?? [];
    if (method === 'notifications/initialized' && m.dir === 'c2s') this.initialized = true;
    else if (method === 'notifications/progress') {
      if (this.tracked(s) && codes.includes('unknown-progress-token')) {
        out.push({
          rule: 'progress/unknown-token',
          path: '/params/progressToken',
          expected: 'the progressToken of a request in flight',
          text: `Progress for a token that no ${m.dir === 's2c' ? 'client' : 'server'} request in this session carried. The receiver cannot tie it to anything and drops it.`,
        });
      }
      const token = params?.progressToken;
      const progress = params?.progress;
      if ((typeof token === 'string' || typeof token === 'number') && typeof progress === 'number') {
        const key = `${m.dir}|${typeof token}|${token}`;
        const last = this.lastProgress.get(key);
        if (last !== undefined && progress <= last) {
          out.push({
            rule: 'progress/not-increasing',
            path: '/params/progress',
            expected: 'a progress value greater than the previous one for this token',
            text: `This progress value is not greater than the previous one for the same token. Progress must increase with each notification; a client's progress bar goes backwards or stalls.`,
          });
        }
        this.lastProgress.delete(key);
        this.lastProgress.set(key, progress);
        trim(this.lastProgress, MAX_TOKENS);
      }
    } else if (method === 'notifications/cancelled') {
      const target = m.pair !== undefined ? this.requests.get(m.pair) : undefined;
      if (this.tracked(s) && codes.includes('cancel-unknown')) {
        out.push({
          rule: 'cancellation/unknown-request',
          path: '/params/requestId',
          expected: 'the id of a request this side sent and is still waiting for',
          text: `notifications/cancelled names a request id this side never sent in this session. The receiver ignores it.`,
        });
      } else if (target?.method === 'initialize' || (m.pair !== undefined && m.pair === this.initializeSeq)) {
        out.push({
          rule: 'cancellation/initialize',
          path: '/params/requestId',
          expected: 'any request but initialize',
          text: 'The client cancelled its initialize request, which must never be cancelled; the session is left half-initialized.',
        });
      } else if (m.pair !== undefined && this.answered.has(m.pair) && (m.ts ?? 0) - (this.answered.get(m.pair) ?? 0) > CANCEL_RACE_MS) {
        // The spec lets a cancellation cross the response on the wire (the receiver ignores it): only a cancellation
        // sent well after the answer went by is the sender's mistake.
        const late = (m.ts ?? 0) - (this.answered.get(m.pair) ?? 0);
        out.push({
          rule: 'cancellation/already-answered',
          path: '/params/requestId',
          expected: 'a request still in progress',
          text: `notifications/cancelled for request #${m.pair}, whose response had gone by ${late} ms earlier — too long ago to have crossed it on the wire. The receiver ignores it; the sender lost track of which of its requests are still in flight.`,
        });
      }
    } else if (m.dir === 's2c') this.serverNotificationCapability(s, method, out);
    else if (method === 'notifications/roots/list_changed' && s.clientCapabilities && this.fromStart) {
      if (obj(s.clientCapabilities.roots)?.listChanged !== true) {
        out.push({
          rule: 'capability/roots-list-changed-not-declared',
          expected: 'capabilities.roots.listChanged: true in the client’s initialize',
          text: 'The client sent notifications/roots/list_changed but did not declare roots.listChanged. A server need not expect it and may ignore it.',
        });
      }
    }
  }

  private onAnswer(m: LintMessage, out: Violation[]): void {
    if (m.pair === undefined) return;
    const note = this.requests.get(m.pair);
    this.requests.delete(m.pair);
    this.answered.set(m.pair, m.ts ?? 0);
    trim(this.answered, MAX_ANSWERED);
    if (m.kind !== 'response') return;
    const result = obj(obj(m.value)?.result);
    if (!result || (result.resultType !== undefined && result.resultType !== 'complete') || obj(result.task)) return;
    const method = note?.method ?? m.requestMethod;
    if (method === 'initialize') this.initResult = true;
    if (method && LIST_METHODS.has(method) && typeof result.nextCursor === 'string') {
      let set = this.cursors.get(method);
      if (!set) this.cursors.set(method, (set = new Set()));
      set.add(result.nextCursor);
      if (set.size > MAX_CURSORS) set.delete(set.values().next().value as string);
    }
    if (method === 'tools/list' && Array.isArray(result.tools)) {
      // A first page replaces what the session knew; later pages (the request had a cursor) add to it.
      if (!note?.cursor) this.tools = new Map();
      for (const t of result.tools) {
        const tool = obj(t);
        if (!tool || typeof tool.name !== 'string') continue;
        this.tools.set(tool.name, { input: obj(tool.inputSchema), output: obj(tool.outputSchema) });
      }
      trim(this.tools, MAX_TOOLS);
    }
    if (method === 'tools/call' && !Array.isArray(result.content)) {
      out.push({
        rule: 'tools/missing-content',
        path: '/result/content',
        expected: 'content: an array of content blocks (it may be empty)',
        text: `The result of tools/call${note?.tool !== undefined ? ` ${JSON.stringify(note.tool)}` : ''} has no content array, which every CallToolResult must have. The TypeScript SDK client fills in an empty list, but stricter clients (the Python SDK's, for one) fail to validate the result and the call errors.`,
      });
    }
    if (method === 'tools/call' && note?.tool !== undefined && result.isError !== true) {
      const output = this.tools.get(note.tool)?.output;
      if (output === undefined) return;
      if (result.structuredContent === undefined) {
        out.push({
          rule: 'tools/missing-structured-content',
          path: '/result/structuredContent',
          expected: 'structuredContent matching the tool’s outputSchema',
          text: `Tool ${JSON.stringify(note.tool)} declares an outputSchema but its result has no structuredContent. A server must return structured results for such a tool; an SDK client rejects this result with an error.`,
        });
        return;
      }
      const checked = this.schemas.check(output, result.structuredContent, '/result/structuredContent');
      this.notChecked(
        checked,
        `${note.tool}|output`,
        '/result/structuredContent',
        `the structuredContent of tool ${JSON.stringify(note.tool)} against its outputSchema`,
        out,
      );
      const err = checked.error;
      if (err) {
        out.push({
          rule: 'tools/structured-content-schema',
          ...err,
          text: `The structuredContent of tool ${JSON.stringify(note.tool)} does not match its outputSchema: at ${err.path}, expected ${err.expected}. An SDK client validates it and turns the call into an error.`,
        });
      }
    }
  }

  /**
   * What a schema check could not do, as a note (never a violation): once per session, tool, schema
   * and reason. `what` names the check: "the arguments of tools/call \"x\" against the tool's inputSchema".
   */
  private notChecked(checked: SchemaOutcome, key: string, path: string, what: string, out: Violation[]): void {
    const say = (rule: string, text: string) => {
      const k = `${key}|${rule}`;
      if (this.noted.has(k)) return;
      this.noted.add(k);
      trim(this.noted, MAX_NOTES);
      out.push({
        rule,
        note: true,
        path,
        section: path.startsWith('/params') ? 'server/tools#calling-tools' : 'server/tools#output-schema',
        text,
      });
    };
    if (checked.notChecked) say(checked.notChecked.rule, `mcpscope did not check ${what}: ${checked.notChecked.detail}.`);
    if (checked.uncheckable?.length) {
      const list = checked.uncheckable.slice(0, 5).map((p) => `/${p.length > 80 ? `${p.slice(0, 79)}…` : p}/`);
      const more = checked.uncheckable.length > 5 ? ` and ${checked.uncheckable.length - 5} more` : '';
      say(
        'lint/pattern-not-checkable',
        `mcpscope checked ${what} without the pattern${checked.uncheckable.length === 1 ? '' : 's'} ${list.join(', ')}${more}: RE2, the linear-time engine mcpscope runs a peer's patterns on, has no lookaround or backreferences, and mcpscope never falls back to a backtracking one. Strings are not checked against ${checked.uncheckable.length === 1 ? 'it' : 'them'}.`,
      );
    }
  }

  /** A client request that needs a server capability. */
  private serverCapability(s: LintSession, method: string, out: Violation[]): void {
    const caps = s.serverCapabilities;
    if (!caps || !this.initResult) return;
    const has = (name: string) => obj(caps[name]) !== undefined;
    const need = (rule: string, capability: string, what: string) =>
      out.push({
        rule,
        expected: `capabilities.${capability} in the server’s initialize result`,
        text: `The client sent ${method}, but the server did not declare ${capability} in its capabilities. ${what}`,
      });
    const prefix = method.slice(0, method.indexOf('/') + 1);
    if (method === 'resources/subscribe' || method === 'resources/unsubscribe') {
      if (obj(caps.resources)?.subscribe !== true)
        need('capability/resources-subscribe-not-declared', 'resources.subscribe', 'The server may answer -32601 (method not found).');
    } else if (prefix === 'tools/' && !has('tools'))
      need('capability/tools-not-declared', 'tools', 'A server without it answers -32601 (method not found).');
    else if (prefix === 'prompts/' && !has('prompts'))
      need('capability/prompts-not-declared', 'prompts', 'A server without it answers -32601 (method not found).');
    else if (prefix === 'resources/' && !has('resources'))
      need('capability/resources-not-declared', 'resources', 'A server without it answers -32601 (method not found).');
    else if (method === 'logging/setLevel' && !has('logging'))
      need('capability/logging-not-declared', 'logging', 'A server without it answers -32601 (method not found).');
    else if (method === 'completion/complete' && versionAtLeast(s.protocolVersion, '2025-03-26') && !has('completions'))
      need('capability/completions-not-declared', 'completions', 'A server without it answers -32601 (method not found).');
  }

  /** A server request that needs a client capability. */
  private clientCapability(s: LintSession, method: string, params: Record<string, unknown> | undefined, out: Violation[]): void {
    const caps = s.clientCapabilities;
    if (!caps || !this.fromStart) return;
    const need = (rule: string, capability: string) =>
      out.push({
        rule,
        expected: `capabilities.${capability} in the client’s initialize`,
        text: `The server sent ${method}, but the client did not declare ${capability} in its capabilities. A client without it answers with an error (-32601 method not found), and whatever the server wanted it for fails.`,
      });
    const elicitation = obj(caps.elicitation);
    if (method === 'sampling/createMessage' && !obj(caps.sampling)) need('capability/sampling-not-declared', 'sampling');
    else if (method === 'roots/list' && !obj(caps.roots)) need('capability/roots-not-declared', 'roots');
    else if (method === 'elicitation/create' && !elicitation) need('capability/elicitation-not-declared', 'elicitation');
    else if (method === 'elicitation/create' && params?.mode === 'url' && !obj(elicitation?.url))
      need('capability/elicitation-url-not-declared', 'elicitation.url');
  }

  /** A server notification that needs a server capability. */
  private serverNotificationCapability(s: LintSession, method: string, out: Violation[]): void {
    const caps = s.serverCapabilities;
    if (!caps || !this.initResult) return;
    const m = /^notifications\/(tools|prompts|resources)\/list_changed$/.exec(method);
    if (m) {
      if (obj(caps[m[1]])?.listChanged !== true) {
        out.push({
          rule: 'capability/list-changed-not-declared',
          expected: `capabilities.${m[1]}.listChanged: true in the server’s initialize result`,
          text: `The server sent ${method} but did not declare ${m[1]}.listChanged. Clients only listen for it when it is declared: this one is likely ignored and the client's list stays stale.`,
        });
      }
    } else if (method === 'notifications/resources/updated' && obj(caps.resources)?.subscribe !== true) {
      out.push({
        rule: 'capability/resources-subscribe-not-declared',
        expected: 'capabilities.resources.subscribe: true in the server’s initialize result',
        text: 'The server sent notifications/resources/updated but did not declare resources.subscribe; a client never subscribed and ignores it.',
      });
    } else if (method === 'notifications/message' && !obj(caps.logging)) {
      out.push({
        rule: 'capability/logging-not-declared',
        expected: 'capabilities.logging in the server’s initialize result',
        text: 'The server sent notifications/message but did not declare logging in its capabilities. Clients may drop log messages of a server that has no logging capability.',
      });
    }
  }

  /** Streamable HTTP: MCP-Protocol-Version on every client POST after initialization (2025-06-18 on). */
  private headers(s: LintSession, headers: HeaderMap, out: Violation[]): void {
    const version = s.protocolVersion;
    if (!this.initResult || !isKnownVersion(version) || !versionAtLeast(version, '2025-06-18')) return;
    const sent = firstHeader(headers, 'mcp-protocol-version')?.trim();
    if (sent === undefined) {
      out.push({
        rule: 'http/protocol-version-header-missing',
        expected: `an MCP-Protocol-Version: ${version} header`,
        text: `The client's POST has no MCP-Protocol-Version header, which every request after initialization must carry from 2025-06-18 on. A server without it assumes 2025-03-26 and may answer differently, or refuse with 400.`,
      });
    } else if (sent !== version) {
      // Only a version is quoted: any other value could be anything, and cut short here it would escape the redactor.
      const said = /^\d{4}-\d{2}-\d{2}$/.test(sent) ? JSON.stringify(sent) : 'a value that is not a protocol version';
      out.push({
        rule: 'http/protocol-version-header-mismatch',
        expected: `MCP-Protocol-Version: ${version} (the negotiated version)`,
        text: `The client's POST says MCP-Protocol-Version ${said}, but the session negotiated ${version}. A server answers a version it does not support with 400 Bad Request.`,
      });
    }
  }
}

/** elicitation/create's requestedSchema: a flat object of primitive properties (string, number, integer, boolean, enums). */
function elicitationSchema(params: Record<string, unknown> | undefined, out: Violation[]): void {
  const props = obj(obj(params?.requestedSchema)?.properties);
  if (!props) return;
  for (const [name, def] of Object.entries(props)) {
    const d = obj(def);
    const type = d?.type;
    const arrayOfEnum = type === 'array' && (obj(d?.items)?.enum !== undefined || obj(d?.items)?.anyOf !== undefined);
    if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean' || arrayOfEnum) continue;
    out.push({
      rule: 'elicitation/requested-schema',
      path: `/params/requestedSchema/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      expected: 'a primitive property: type string, number, integer or boolean (or a string enum); no objects, nesting or plain arrays',
      text: `Property ${name.length <= 64 ? JSON.stringify(name) : `with a ${name.length}-character name`} of the elicitation's requestedSchema is ${typeof type === 'string' ? `of type ${JSON.stringify(type)}` : 'not a primitive'}. Elicitation only allows flat primitive fields: clients refuse the request (an SDK client fails validation) and the user is never asked.`,
    });
  }
}
