/**
 * What the tools offered to the model cost one request (issue 27, "Context cost"; docs/agent-view.md):
 * per MCP server, the bytes and estimated tokens of its tools' descriptions and schemas as the
 * client sent them, the server's `instructions` where the client put them in the system prompt, and
 * their share of the request's real input tokens. Pure: the counting is a function handed in (the
 * recorder's tokenizer, which runs on a thread of its own and answers later: a text it has not
 * counted yet is `undefined`, and so is the cost until every text is counted).
 */
import type { ContextCost, ContextServerCost, ToolOffered } from '../model/model-turn.js';
import { byteLength } from '../model/byte-length.js';

export const BUILT_IN = '(built-in)';

export type CountTokens = (text: string) => number | undefined;

/**
 * Claude Code puts servers' instructions into its system prompt as
 * `# MCP Server Instructions` … `## <server>` … (protocol-notes §9): the text of each server's
 * section, by server name. Other clients: none found.
 */
export function instructionsBySection(system: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!system) return out;
  const start = system.indexOf('# MCP Server Instructions');
  if (start < 0) return out;
  const lines = system.slice(start).split('\n').slice(1);
  let server: string | undefined;
  let body: string[] = [];
  const flush = () => {
    if (server !== undefined && body.join('\n').trim() !== '') out.set(server, body.join('\n').trim());
  };
  for (const line of lines) {
    if (/^# /.test(line)) break; // the next top-level section
    const m = /^## (.+)$/.exec(line);
    if (m) {
      flush();
      server = m[1].trim();
      body = [];
    } else if (server !== undefined) body.push(line);
    if (out.size >= 256) break;
  }
  flush();
  return out;
}

/** The texts a cost needs counted: every tool's description and schema, every instructions section. */
export function textsToCount(tools: { description: string; schemaText: string }[], instructions: Map<string, string>): string[] {
  const texts: string[] = [];
  for (const t of tools) texts.push(t.description, t.schemaText);
  for (const text of instructions.values()) texts.push(text);
  return texts;
}

/**
 * Each tool's cost (ToolOffered) and the per-server sums, or undefined while a text is not
 * counted yet. `tools[i]` pairs with `raw[i]`.
 */
export function contextCost(input: {
  encoding: string;
  requestBytes: number;
  raw: { description: string; schemaText: string }[];
  tools: Omit<ToolOffered, 'descriptionTokens' | 'schemaTokens'>[];
  instructions: Map<string, string>;
  totalInputTokens?: number;
  count: CountTokens;
  /** The MCP session each client server name was joined to. */
  sessionOf?: (server: string) => string | undefined;
}): { tools: ToolOffered[]; cost: ContextCost } | undefined {
  const tools: ToolOffered[] = [];
  const servers = new Map<string, ContextServerCost>();
  let toolsBytes = 0;
  let toolsTokens = 0;
  for (let i = 0; i < input.tools.length; i++) {
    const d = input.count(input.raw[i].description);
    const s = input.count(input.raw[i].schemaText);
    if (d === undefined || s === undefined) return undefined;
    const tool: ToolOffered = { ...input.tools[i], descriptionTokens: d, schemaTokens: s };
    tools.push(tool);
    const key = tool.server ?? BUILT_IN;
    let acc = servers.get(key);
    if (!acc) servers.set(key, (acc = { server: key, tools: 0, bytes: 0, tokens: 0, descriptionTokens: 0, schemaTokens: 0 }));
    acc.tools += 1;
    acc.bytes += tool.descriptionBytes + tool.schemaBytes;
    acc.descriptionTokens += d;
    acc.schemaTokens += s;
    acc.tokens += d + s;
    toolsBytes += tool.descriptionBytes + tool.schemaBytes;
    toolsTokens += d + s;
  }
  for (const [server, text] of input.instructions) {
    const n = input.count(text);
    if (n === undefined) return undefined;
    let acc = servers.get(server);
    if (!acc) servers.set(server, (acc = { server, tools: 0, bytes: 0, tokens: 0, descriptionTokens: 0, schemaTokens: 0 }));
    acc.instructionsTokens = (acc.instructionsTokens ?? 0) + n;
    acc.bytes += byteLength(text);
  }
  const total = input.totalInputTokens;
  for (const acc of servers.values()) {
    if (total !== undefined && total > 0) acc.share = Math.min(1, (acc.tokens + (acc.instructionsTokens ?? 0)) / total);
    const session = acc.server === BUILT_IN ? undefined : input.sessionOf?.(acc.server);
    if (session !== undefined) acc.sessionId = session;
  }
  const list = [...servers.values()].sort(
    (a, b) => b.tokens + (b.instructionsTokens ?? 0) - (a.tokens + (a.instructionsTokens ?? 0)) || a.server.localeCompare(b.server),
  );
  return { tools, cost: { encoding: input.encoding, requestBytes: input.requestBytes, toolsBytes, toolsTokens, servers: list } };
}
