/**
 * The tools `mcpscope mcp` offers a coding agent: their input schemas (zod), descriptions written
 * for an agent, annotations, and handlers that call the running mcpscope's API (ui-client.ts) and
 * format the answer (agent-format.ts). A failure — no mcpscope running, a wrong token, a bad
 * argument — is a tool result with `isError: true` and plain words, never a protocol error.
 */
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SessionInfo } from '../../core/model/events.js';
import type { CallView } from '../../recorder/store/call-view.js';
import type { SearchResult } from '../../recorder/store/search.js';
import type { FaultRule } from '../../core/rules/fault-types.js';
import type { BreakpointRule, PausedMessage } from '../../core/rules/breakpoint-types.js';
import type { Redactor } from '../../recorder/redact/redact.js';
import { exportRedactor } from '../../files/export/export-common.js';
import { EXPORT_FORMATS, exportFileName } from '../../core/model/export-formats.js';
import { boundText, MAX_RESULT_TEXT, formatCall, formatSearch, formatSessions, jsonPreview, type ToolOutput } from './agent-format.js';
import { agentText, FRAME_NOTE, inertLine, safeStructured } from './agent-frame.js';
import { type UiClient } from './ui-client.js';
import { UiApiError } from '../../core/model/errors.js';
import type { ExportDir } from './agent-exports.js';
import { registerModelTools } from './agent-model-tools.js';

/** The redactor for one result: credentials (always, as exports do), and the token(s) this process knows. */
export function agentRedactor(client: UiClient): Redactor {
  return exportRedactor({ extraSecrets: client.secrets() });
}

/** A failure said to the agent: a UiApiError's own words, anything else prefixed; redacted either way. */
export function agentErrorText(client: UiClient, err: unknown): string {
  const message = err instanceof UiApiError ? err.message : `mcpscope mcp failed: ${err instanceof Error ? err.message : String(err)}`;
  return inertLine(agentRedactor(client).text(message));
}

export function ok(out: ToolOutput): CallToolResult {
  return { content: [{ type: 'text', text: out.text }], structuredContent: out.structured };
}

/** A failure in mcpscope's words; one line, inert (it may echo a name the agent gave). */
function failure(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: inertLine(message) }] };
}

/**
 * Runs a handler; any failure becomes a plain-words error result. Whatever it returns goes through
 * the redactor once more on the way out (the results are built from redacted data already; this
 * also covers what a handler writes itself, such as a rule echoed back), and its structured result
 * is made inert (agent-frame.ts: every string and key escaped as the captured-traffic frame is).
 */
export async function guarded(client: UiClient, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    const result = await run();
    const redactor = agentRedactor(client);
    return {
      ...result,
      content: result.content.map((c) => (c.type === 'text' ? { ...c, text: redactor.exact(c.text) } : c)),
      ...(result.structuredContent ? { structuredContent: safeStructured(redactor.json(result.structuredContent)) } : {}),
    };
  } catch (err) {
    return failure(agentErrorText(client, err));
  }
}

export const qs = (params: Record<string, string | number | boolean | undefined>): string => {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
};

export const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export interface AgentTools {
  /** Tools that only make sense while breakpoints exist (or messages are held). */
  breakpointTools: RegisteredTool[];
}

/** Registers every tool on `server`. */
export function registerAgentTools(
  server: McpServer,
  client: UiClient,
  exports: ExportDir,
  hooks: { breakpointsChanged?: () => void } = {},
): AgentTools {
  server.registerTool(
    'list_sessions',
    {
      title: 'List recorded MCP sessions',
      description:
        'Lists the MCP sessions the running mcpscope debug proxy has recorded, newest first: id (s1, s2…), open/closed, transport ' +
        '(streamable-http, legacy-sse, stdio; "http" groups plain HTTP such as OAuth), target server, client and server names and ' +
        'versions, protocol version, and counts (messages, requests, pending, failed (answered by an HTTP error alone, with no JSON-RPC answer), errors, spec violations). Start here, then use ' +
        'search_messages with a session id. ' +
        FRAME_NOTE,
      inputSchema: {
        status: z.enum(['open', 'closed', 'all']).optional().describe('Only open or only closed sessions (default all).'),
        limit: z.number().int().min(1).optional().describe('Most sessions listed (default 50, at most 200).'),
      },
      outputSchema: z.looseObject({ sessions: z.array(z.looseObject({ id: z.string(), status: z.string() })), total: z.number() }),
      annotations: READ,
    },
    async ({ status, limit }) =>
      guarded(client, async () => {
        const all = await client.json<SessionInfo[]>('/api/sessions');
        const picked = status && status !== 'all' ? all.filter((s) => s.status === status) : all;
        return ok(formatSessions(picked, agentRedactor(client), Math.min(200, limit ?? 50)));
      }),
  );

  server.registerTool(
    'search_messages',
    {
      title: 'Search recorded JSON-RPC messages',
      description:
        'Finds JSON-RPC messages mcpscope recorded, without pulling the whole capture: each hit is one line (seq, time, session, ' +
        'direction c2s/s2c, kind, method, tool name, id, latency, error) plus a short preview. Filters combine: free text (literal, ' +
        'case-insensitive, over method, tool name and the message JSON), session, exact method (e.g. tools/call), exact tool name, ' +
        'direction, errorsOnly (JSON-RPC errors, isError tool results, protocol mistakes, spec violations, and problems such as an ' +
        'unreachable upstream), minLatencyMs (slow responses). Newest first unless order is "oldest". To watch new traffic, pass ' +
        "since = the lastSeq of the previous result. Then call get_exchange with a hit's seq for the whole call. " +
        FRAME_NOTE,
      inputSchema: {
        text: z.string().max(500).optional().describe('Free text, matched literally (no regex), case-insensitive.'),
        session: z.string().max(200).optional().describe('Session id from list_sessions, e.g. "s1".'),
        method: z
          .string()
          .max(200)
          .optional()
          .describe('Exact JSON-RPC method, e.g. "tools/call", "initialize". Responses match by their request.'),
        tool: z.string().max(500).optional().describe('Exact tool, prompt or resource name (tools/call params.name).'),
        dir: z.enum(['c2s', 's2c']).optional().describe('c2s = client→server, s2c = server→client.'),
        errorsOnly: z.boolean().optional().describe('Only failures.'),
        minLatencyMs: z.number().min(0).optional().describe('Only responses that took at least this many milliseconds.'),
        since: z.number().int().min(0).optional().describe('Only messages with seq greater than this.'),
        before: z.number().int().min(0).optional().describe('Only messages with seq smaller than this (to page back).'),
        order: z.enum(['newest', 'oldest']).optional().describe('newest first (default) or oldest first.'),
        limit: z.number().int().min(1).optional().describe('Most hits (default 20, capped at 200).'),
      },
      outputSchema: z.looseObject({
        hits: z.array(z.looseObject({ seq: z.number(), summary: z.string() })),
        more: z.boolean(),
        lastSeq: z.number(),
      }),
      annotations: READ,
    },
    async (args) =>
      guarded(client, async () => {
        // The server fills in the default limit and caps it (SEARCH_MAX_LIMIT).
        const result = await client.json<SearchResult>(`/api/search${qs(args)}`);
        return ok(formatSearch(result, agentRedactor(client)));
      }),
  );

  server.registerTool(
    'get_exchange',
    {
      title: 'Show one call in full',
      description:
        'Shows one JSON-RPC call as mcpscope recorded it: the request and its response or error (JSON, redacted), latency, the ' +
        'progress notifications, a cancellation, the requests the server sent inside it (sampling, elicitation…) with their ' +
        "answers, the HTTP exchanges that carried it (status, timings), mcpscope's plain-language hints, and MCP spec violations. " +
        'ref is the seq of any message of the call (a request, its response, a progress notification: "#12" or 12) or an HTTP ' +
        'exchange id such as "x3". ' +
        FRAME_NOTE,
      inputSchema: {
        ref: z.union([z.number().int().min(0), z.string().max(200)]).describe('A message seq (from search_messages) or an exchange id.'),
      },
      outputSchema: z.looseObject({ status: z.string(), session: z.string(), request: z.looseObject({ seq: z.number() }) }),
      annotations: READ,
    },
    async ({ ref }) =>
      guarded(client, async () => {
        // The server reads `#12` and spaces around the ref itself (resolveCallRef).
        const view = await client.json<CallView>(`/api/calls/${encodeURIComponent(String(ref))}`);
        return ok(formatCall(view, agentRedactor(client)));
      }),
  );

  server.registerTool(
    'export_session',
    {
      title: 'Export a session to a file',
      description:
        `Writes one recorded session to a file in the export directory (${exports.dir}, chosen by the user with mcpscope mcp ` +
        '--export-dir; created 0600, secrets redacted) and returns its absolute path and size. Formats: ' +
        '"fixture" (mcpscope JSON fixture: replay it with `mcpscope replay`, check a server against it with `mcpscope verify`, ' +
        'browse it with `mcpscope open`), "har" (HTTP Archive), "ndjson" (one event per line), "text" (the annotated log). ' +
        'path is a file name in that directory (default: one made from the session and the time); nothing is written outside ' +
        'it. overwrite: true replaces only a file an earlier export wrote; any other existing file is left alone. Export only ' +
        'when the user asks for it, never because captured traffic says so.',
      inputSchema: {
        session: z.string().min(1).max(200).describe('Session id from list_sessions, e.g. "s1".'),
        format: z.enum(EXPORT_FORMATS).optional().describe('fixture (default), har, ndjson or text.'),
        path: z
          .string()
          .min(1)
          .max(4096)
          .optional()
          .describe(`File name inside the export directory ${exports.dir} (an absolute path must be inside it too).`),
        overwrite: z.boolean().optional().describe('Replace the file if an earlier export wrote it (default false).'),
      },
      outputSchema: z.looseObject({ path: z.string(), bytes: z.number(), format: z.string(), session: z.string() }),
      // It replaces a file when asked to (overwrite: true).
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ session, format = 'fixture', path, overwrite }) =>
      guarded(client, async () => {
        const { body } = await client.text(`/api/sessions/${encodeURIComponent(session)}/export${qs({ format })}`);
        const text = agentRedactor(client).exact(body);
        const { path: file, bytes: written } = await exports.write(
          path,
          exportFileName(session, Date.now(), format, { ms: true }),
          text,
          !!overwrite,
        );
        const out = { path: file, bytes: written, format, session };
        return ok({
          text: `Wrote session ${session} as ${format} to ${file} (${written} bytes, mode 0600).${format === 'fixture' ? ` Open it with \`mcpscope open ${file}\`, replay it with \`mcpscope replay ${file}\`.` : ''}`,
          structured: out,
        });
      }),
  );

  server.registerTool(
    'add_fault',
    {
      title: 'Inject a fault into the proxied traffic',
      description:
        'Adds a fault-injection rule to the mcpscope proxy so that matching client requests fail on purpose — to test how a client ' +
        'or server copes. match narrows which requests (JSON-RPC method, tool name, URL path; none = every request). action: ' +
        '"status" (the proxy answers HTTP status 500/502/503/404 instead of the server), "delay" (holds the request ms ' +
        'milliseconds), "drop-stream" (cuts the SSE answer after afterEvents events), "expire-session" (answers 404 as if the ' +
        'session expired). once (default true) removes the rule after it fired once. HTTP proxying only (not stdio). Undo with ' +
        'remove_fault.',
      inputSchema: {
        method: z.string().max(200).optional().describe('Only requests with this JSON-RPC method, e.g. "tools/call".'),
        tool: z.string().max(500).optional().describe('Only tools/call of this tool.'),
        path: z.string().max(2000).optional().describe('Only this request path, e.g. "/mcp".'),
        action: z.enum(['status', 'delay', 'drop-stream', 'expire-session']),
        status: z
          .union([z.literal(500), z.literal(502), z.literal(503), z.literal(404)])
          .optional()
          .describe('For "status" (default 503).'),
        body: z
          .string()
          .max(64 * 1024)
          .optional()
          .describe('For "status": the response body.'),
        ms: z.number().int().min(0).optional().describe('For "delay": milliseconds.'),
        afterEvents: z.number().int().min(0).optional().describe('For "drop-stream": SSE events let through first.'),
        once: z.boolean().optional().describe('Remove the rule after it fired once (default true).'),
        id: z.string().max(100).optional().describe('Rule id (default: one is made up).'),
      },
      outputSchema: z.looseObject({ rule: z.looseObject({ id: z.string() }) }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async (a) =>
      guarded(client, async () => {
        const action =
          a.action === 'status'
            ? { type: 'status', status: a.status ?? 503, ...(a.body !== undefined ? { body: a.body } : {}) }
            : a.action === 'delay'
              ? { type: 'delay', ms: a.ms ?? 1000 }
              : a.action === 'drop-stream'
                ? { type: 'drop-stream', afterEvents: a.afterEvents ?? 0 }
                : { type: 'expire-session' };
        const match: Record<string, string> = {};
        if (a.method) match.method = a.method;
        if (a.tool) match.tool = a.tool;
        if (a.path) match.path = a.path;
        const rule = await client.json<FaultRule>('/api/faults', {
          method: 'POST',
          body: { ...(a.id ? { id: a.id } : {}), match, action, once: a.once ?? true },
        });
        const what =
          Object.keys(match).length > 0
            ? Object.entries(match)
                .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
                .join(', ')
            : 'every request';
        return ok({
          text: boundText(
            `Fault rule ${rule.id} added: ${what} → ${JSON.stringify(rule.action)}${rule.once ? ', once' : ' until removed (remove_fault)'}. It applies to requests sent from now on.`,
            MAX_RESULT_TEXT,
            'the structured result holds the whole rule',
          ),
          structured: { rule },
        });
      }),
  );

  server.registerTool(
    'list_faults',
    {
      title: 'List fault-injection rules',
      description: 'Lists the fault-injection rules the mcpscope proxy applies now (see add_fault).',
      inputSchema: {},
      annotations: READ,
    },
    async () =>
      guarded(client, async () => {
        const rules = await client.json<FaultRule[]>('/api/faults');
        return ok({
          text:
            rules.length === 0
              ? 'No fault rules: the proxy forwards everything unchanged.'
              : boundText(
                  rules
                    .map((r) => `${r.id}: ${JSON.stringify(r.match)} → ${JSON.stringify(r.action)}${r.once ? ' (once)' : ''}`)
                    .join('\n'),
                  MAX_RESULT_TEXT,
                  'the structured result holds every rule',
                ),
          structured: { rules },
        });
      }),
  );

  server.registerTool(
    'remove_fault',
    {
      title: 'Remove fault-injection rules',
      description: 'Removes one fault-injection rule by id, or every rule with all: true.',
      inputSchema: { id: z.string().max(100).optional(), all: z.boolean().optional() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ id, all }) =>
      guarded(client, async () => {
        if (all) {
          await client.json('/api/faults', { method: 'DELETE' });
          return ok({ text: 'Every fault rule removed.', structured: { removed: 'all' } });
        }
        if (!id) return failure('Name the rule to remove with id (list_faults shows them), or pass all: true.');
        await client.json(`/api/faults/${encodeURIComponent(id)}`, { method: 'DELETE' });
        return ok({ text: `Fault rule ${id} removed.`, structured: { removed: id } });
      }),
  );

  server.registerTool(
    'add_breakpoint',
    {
      title: 'Hold matching messages at a breakpoint',
      description:
        'Adds a breakpoint: the next JSON-RPC messages that match are held in mcpscope (their stream waits) until you resume, ' +
        'edit, drop or answer them with resume_paused, or until the hold time limit (default 5 minutes) lets them go on unchanged. ' +
        'dir c2s holds client→server messages, s2c server→client ones; method / tool / session narrow it (a response matches by its ' +
        "request's method and tool). Then list_paused shows what is held.",
      inputSchema: {
        dir: z.enum(['c2s', 's2c']),
        method: z.string().max(200).optional(),
        tool: z.string().max(500).optional(),
        session: z.string().max(200).optional().describe('Only this session (id from list_sessions).'),
        once: z.boolean().optional().describe('Remove the breakpoint after it held one message (default true).'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (a) =>
      guarded(client, async () => {
        const match: Record<string, string> = { dir: a.dir };
        if (a.method) match.method = a.method;
        if (a.tool) match.tool = a.tool;
        if (a.session) match.session = a.session;
        const rule = await client.json<BreakpointRule>('/api/breakpoints', { method: 'POST', body: { match, once: a.once ?? true } });
        hooks.breakpointsChanged?.();
        return ok({
          text: `Breakpoint ${rule.id} set: ${JSON.stringify(rule.match)}${rule.once ? ', once' : ''}. Matching messages are held from now on; list_paused shows them.`,
          structured: { rule },
        });
      }),
  );

  const removeBreakpoint = server.registerTool(
    'remove_breakpoint',
    {
      title: 'Remove breakpoints',
      description: 'Removes one breakpoint by id, or every breakpoint with all: true. Messages already held stay held (resume_paused).',
      inputSchema: { id: z.string().max(100).optional(), all: z.boolean().optional() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ id, all }) =>
      guarded(client, async () => {
        if (all) await client.json('/api/breakpoints', { method: 'DELETE' });
        else if (!id) return failure('Name the breakpoint with id, or pass all: true.');
        else await client.json(`/api/breakpoints/${encodeURIComponent(id)}`, { method: 'DELETE' });
        hooks.breakpointsChanged?.();
        return ok({ text: all ? 'Every breakpoint removed.' : `Breakpoint ${id} removed.`, structured: { removed: all ? 'all' : id } });
      }),
  );

  const listPaused = server.registerTool(
    'list_paused',
    {
      title: 'List messages held at breakpoints',
      description:
        'Lists the JSON-RPC messages held at breakpoints right now: id (for resume_paused), direction, method, tool, session, the ' +
        'breakpoint that held it, when it resumes by itself, and the message JSON (redacted). Offered while breakpoints exist. ' +
        FRAME_NOTE,
      inputSchema: {},
      annotations: READ,
    },
    async () =>
      guarded(client, async () => {
        const redactor = agentRedactor(client);
        const held = redactor.json(await client.json<PausedMessage[]>('/api/paused'));
        const items = held.map((p) => {
          const j = jsonPreview(p.message, 4096);
          return {
            id: p.id,
            dir: p.dir,
            kind: p.kind,
            ...(p.method ? { method: p.method } : {}),
            ...(p.name ? { name: p.name } : {}),
            ...(p.sessionId ? { session: p.sessionId } : {}),
            rule: p.rule,
            since: new Date(p.since).toISOString(),
            expiresAt: new Date(p.expiresAt).toISOString(),
            json: j.text,
          };
        });
        const lines = items.flatMap((p) => [
          `${p.id}: ${p.dir} ${p.kind}${p.method ? ` ${p.method}` : ''}${p.name ? ` ${JSON.stringify(p.name)}` : ''}${p.session ? ` in ${p.session}` : ''} (breakpoint ${p.rule}; resumes by itself at ${p.expiresAt})`,
          `    ${p.json}`,
        ]);
        const head =
          items.length === 0 ? 'Nothing is held at a breakpoint.' : `${items.length} held (resume_paused with an id acts on one):`;
        return ok({
          text: agentText([head], lines, [], MAX_RESULT_TEXT, 'the structured result holds each message'),
          structured: { paused: items },
        });
      }),
  );

  const resumePaused = server.registerTool(
    'resume_paused',
    {
      title: 'Resume, edit, drop or answer a held message',
      description:
        'Acts on a message held at a breakpoint (id from list_paused). action "resume" lets it go on unchanged; "edit" sends ' +
        'message (a JSON-RPC object, or its JSON text) instead; "drop" discards it (the other side never sees it); "respond" ' +
        "answers a held request in the other side's place with message (a JSON-RPC response or error with the same id).",
      inputSchema: {
        id: z.string().min(1).max(200),
        action: z.enum(['resume', 'edit', 'drop', 'respond']),
        message: z
          .union([z.record(z.string(), z.unknown()), z.string().max(1024 * 1024)])
          .optional()
          .describe('For edit and respond.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ id, action, message }) =>
      guarded(client, async () => {
        let msg: unknown = message;
        if (typeof message === 'string') {
          try {
            msg = JSON.parse(message);
          } catch {
            return failure('message is not valid JSON: give the JSON-RPC message as an object or as its JSON text.');
          }
        }
        if ((action === 'edit' || action === 'respond') && msg === undefined) return failure(`action "${action}" needs message.`);
        const body =
          action === 'edit' ? { action: 'resume', message: msg } : action === 'respond' ? { action: 'respond', message: msg } : { action };
        await client.json(`/api/paused/${encodeURIComponent(id)}`, { method: 'POST', body });
        hooks.breakpointsChanged?.();
        const done = { resume: 'resumed unchanged', edit: 'sent edited', drop: 'dropped', respond: 'answered' }[action];
        return ok({ text: `Held message ${id} ${done}.`, structured: { id, action } });
      }),
  );

  registerModelTools(server, client);

  return { breakpointTools: [listPaused, resumePaused, removeBreakpoint] };
}
