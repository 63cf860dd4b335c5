/**
 * The checks every real-client test makes (claude-code.test.ts, gemini-cli.test.ts): the cost of
 * the tools per server, and the API key absent from everything mcpscope keeps or shows.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { McpscopeCore } from '../../proxy/app/mcpscope.js';
import type { MessageEvent, ModelTurnInfo } from '../../proxy/core/model/events.js';
import { exportNdjson } from '../../proxy/files/export/export-ndjson.js';
import { exportHar } from '../../proxy/files/export/export-har.js';
import type { CollectedFeed } from '../support/feed.js';

/** `se` costs every tool its MCP session listed, in every request, beside the client's own tools. */
export function expectCostPerServer(turns: ModelTurnInfo[], messages: MessageEvent[]): void {
  const list = messages.find(
    (m) => m.method === 'tools/list' && m.kind === 'response' && m.sessionId === turns[0].toolCalls[0].mcpCall!.sessionId,
  )!;
  const listed = (list.jsonrpc as { result: { tools: unknown[] } }).result.tools.length;
  for (const t of turns) {
    const se = t.context!.servers.find((s) => s.server === 'se')!;
    expect(se.tools).toBe(listed);
    expect(se.tokens).toBeGreaterThan(listed * 10);
    expect(se.share).toBeCloseTo(se.tokens / t.usage!.totalInputTokens!, 6);
    expect(t.context!.servers.find((s) => s.server === '(built-in)')!.tools).toBeGreaterThan(5);
    expect(t.context!.encoding).toContain('o200k_base');
  }
  expect(turns[0].tools.filter((x) => x.server === 'se')).toHaveLength(listed);
}

/** No modification recorded, and `key` in none of store, feed, NDJSON, HAR and log, once `last` is done in the feed. Returns the log. */
export async function expectUnchangedAndKeyless(
  scope: McpscopeCore,
  feed: CollectedFeed,
  logFile: string,
  key: string,
  last: string,
): Promise<string> {
  expect(scope.store.snapshot().filter((e) => e.type === 'modification')).toEqual([]);
  await feed.until((events) => events.some((e) => e.type === 'model-turn' && e.turn.id === last && e.turn.status === 'done'));
  const places = {
    store: JSON.stringify(scope.store.history()),
    feed: JSON.stringify(feed.events),
    ndjson: exportNdjson(scope.store),
    har: JSON.stringify(exportHar(scope.store)),
    log: readFileSync(logFile, 'utf8'),
  };
  for (const [where, text] of Object.entries(places)) expect(text.includes(key), where).toBe(false);
  return places.log;
}
