/**
 * The spec linter's rule table: every rule's stable id, where in the specification it
 * comes from, and what it checks in one line. docs/spec-lint.md documents the same table; the ids
 * are what `problem` events with `code: "spec-violation"` carry in `rule`. Pure: no Node APIs.
 */
import { KNOWN_VERSIONS } from '../model/protocol-version.js';

export interface LintRule {
  id: string;
  /** The specification section, without the version: `basic/lifecycle#initialization`. */
  section: string;
  summary: string;
}

/** The protocol versions whose method sets the linter knows, oldest first (proxy/core/model/protocol-version.ts). */
export { KNOWN_VERSIONS };
/** The version named in a specRef when the session's is not known (yet). */
export const LATEST_VERSION = '2025-11-25';

const table: LintRule[] = [
  // Schema (the official SDK's zod schemas, picked by method; results by the method of the request they answer).
  { id: 'schema/request', section: 'schema', summary: 'A request of a known method does not match its schema.' },
  { id: 'schema/result', section: 'schema', summary: 'A result does not match the result schema of the request it answers.' },
  { id: 'schema/notification', section: 'schema', summary: 'A notification of a known method does not match its schema.' },
  {
    id: 'version/method-not-in-version',
    section: 'schema',
    summary:
      'A method that the negotiated protocol version does not have (elicitation before 2025-06-18, tasks before 2025-11-25; ping, logging/setLevel, tasks and server requests from 2026-07-28 on).',
  },
  {
    id: 'version/content-not-in-version',
    section: 'server/tools#tool-result',
    summary: 'A content block of a type the negotiated version does not have (audio before 2025-03-26, resource_link before 2025-06-18).',
  },
  // Lifecycle.
  {
    id: 'lifecycle/request-before-initialized',
    section: 'basic/lifecycle#initialization',
    summary: 'The client sent a request other than ping before notifications/initialized.',
  },
  {
    id: 'lifecycle/server-request-before-initialized',
    section: 'basic/lifecycle#initialization',
    summary: 'The server sent a request other than ping before the client sent notifications/initialized.',
  },
  // Capabilities the other side did not declare.
  {
    id: 'capability/sampling-not-declared',
    section: 'client/sampling#capabilities',
    summary: 'sampling/createMessage to a client without `sampling`.',
  },
  {
    id: 'capability/elicitation-not-declared',
    section: 'client/elicitation#capabilities',
    summary: 'elicitation/create to a client without `elicitation`.',
  },
  {
    id: 'capability/elicitation-url-not-declared',
    section: 'client/elicitation#capabilities',
    summary: 'URL-mode elicitation/create to a client whose `elicitation` has no `url`.',
  },
  { id: 'capability/roots-not-declared', section: 'client/roots#capabilities', summary: 'roots/list to a client without `roots`.' },
  {
    id: 'capability/roots-list-changed-not-declared',
    section: 'client/roots#capabilities',
    summary: 'notifications/roots/list_changed from a client without `roots.listChanged`.',
  },
  { id: 'capability/tools-not-declared', section: 'server/tools#capabilities', summary: 'tools/* to a server without `tools`.' },
  { id: 'capability/prompts-not-declared', section: 'server/prompts#capabilities', summary: 'prompts/* to a server without `prompts`.' },
  {
    id: 'capability/resources-not-declared',
    section: 'server/resources#capabilities',
    summary: 'resources/* to a server without `resources`.',
  },
  {
    id: 'capability/resources-subscribe-not-declared',
    section: 'server/resources#capabilities',
    summary: 'resources/subscribe (or notifications/resources/updated) without `resources.subscribe`.',
  },
  {
    id: 'capability/logging-not-declared',
    section: 'server/utilities/logging#capabilities',
    summary: 'logging/setLevel to, or notifications/message from, a server without `logging`.',
  },
  {
    id: 'capability/completions-not-declared',
    section: 'server/utilities/completion#capabilities',
    summary: 'completion/complete to a server without `completions` (2025-03-26 on).',
  },
  {
    id: 'capability/list-changed-not-declared',
    section: 'server/tools#list-changed-notification',
    summary: 'notifications/{tools,prompts,resources}/list_changed from a server without that capability’s `listChanged`.',
  },
  // Tools.
  {
    id: 'tools/arguments-schema',
    section: 'server/tools#calling-tools',
    summary: 'tools/call arguments do not match the tool’s inputSchema (from the last tools/list).',
  },
  {
    id: 'tools/missing-content',
    section: 'server/tools#tool-result',
    summary: 'A tools/call result without the content array every CallToolResult must have.',
  },
  {
    id: 'tools/structured-content-schema',
    section: 'server/tools#output-schema',
    summary: 'A tool result’s structuredContent does not match the tool’s outputSchema.',
  },
  {
    id: 'tools/missing-structured-content',
    section: 'server/tools#output-schema',
    summary: 'A tool with an outputSchema returned no structuredContent (and not isError).',
  },
  // Progress and cancellation.
  {
    id: 'progress/unknown-token',
    section: 'basic/utilities/progress',
    summary: 'Progress for a token that no request in this session carried.',
  },
  {
    id: 'progress/not-increasing',
    section: 'basic/utilities/progress',
    summary: 'A progress value not greater than the previous one for its token.',
  },
  {
    id: 'cancellation/unknown-request',
    section: 'basic/utilities/cancellation',
    summary: 'notifications/cancelled for a request id this side never sent.',
  },
  {
    id: 'cancellation/already-answered',
    section: 'basic/utilities/cancellation',
    summary:
      'notifications/cancelled for a request whose response had gone by more than 1 s before (sooner, the two may have crossed on the wire, which the spec allows).',
  },
  { id: 'cancellation/initialize', section: 'basic/utilities/cancellation', summary: 'The client cancelled its initialize request.' },
  // Streamable HTTP headers.
  {
    id: 'http/protocol-version-header-missing',
    section: 'basic/transports#protocol-version-header',
    summary: 'A client POST after initialization without MCP-Protocol-Version (negotiated 2025-06-18 or later).',
  },
  {
    id: 'http/protocol-version-header-mismatch',
    section: 'basic/transports#protocol-version-header',
    summary: 'A client POST whose MCP-Protocol-Version differs from the negotiated version.',
  },
  {
    id: 'http/session-id-not-assigned',
    section: 'basic/transports#session-management',
    summary: 'A client POST with an Mcp-Session-Id to a server whose InitializeResult assigned none.',
  },
  // Elicitation and pagination.
  {
    id: 'elicitation/requested-schema',
    section: 'client/elicitation#requested-schema',
    summary: 'An elicitation requestedSchema property outside the allowed flat primitive subset.',
  },
  {
    id: 'pagination/cursor-not-issued',
    section: 'server/utilities/pagination',
    summary: 'A list request with a cursor the server never returned as nextCursor in this session.',
  },
];

export const RULES: ReadonlyMap<string, LintRule> = new Map(table.map((r) => [r.id, r]));

/**
 * Notes: what the linter could not check, and why — `lint-not-checked` problems, never
 * counted as violations. The section is the one of the check that was skipped.
 */
const notes: LintRule[] = [
  {
    id: 'lint/schema-too-large',
    section: 'server/tools#output-schema',
    summary: 'A tool schema over 256 KB of JSON or 4,000 JSON values: not compiled, values are not checked against it.',
  },
  {
    id: 'lint/schema-too-slow',
    section: 'server/tools#output-schema',
    summary:
      'Compiling a tool schema took longer than 100 ms, or checking a value against it longer than 50 ms: stopped; after a second stop that schema is not checked again.',
  },
  {
    id: 'lint/schema-not-compiled',
    section: 'server/tools#output-schema',
    summary: 'ajv cannot compile a tool schema (an unknown type, a reference it cannot resolve…): values are not checked against it.',
  },
  {
    id: 'lint/compile-budget',
    section: 'server/tools#output-schema',
    summary:
      'mcpscope spent its time for compiling schemas (1 s, back at 0.1 s a second): a new schema is compiled when a later message needs it.',
  },
  {
    id: 'lint/pattern-not-checkable',
    section: 'server/tools#output-schema',
    summary:
      'A pattern RE2 cannot run (lookaround, backreferences): the rest of the schema is checked, strings are not checked against that pattern.',
  },
];

export const NOTES: ReadonlyMap<string, LintRule> = new Map(notes.map((r) => [r.id, r]));

/** `2025-06-18 server/tools#calling-tools`: the version the session negotiated (or the latest), and the section. */
export function specRefOf(ruleId: string, version: string | undefined, section?: string): string {
  return `${version ?? LATEST_VERSION} ${section ?? RULES.get(ruleId)?.section ?? NOTES.get(ruleId)?.section ?? 'schema'}`;
}

export { versionAtLeast } from '../model/protocol-version.js';

export function isKnownVersion(version: string | undefined): boolean {
  return version !== undefined && (KNOWN_VERSIONS as readonly string[]).includes(version);
}
