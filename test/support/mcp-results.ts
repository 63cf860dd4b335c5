import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The first text content of a tool result ('' when there is none). */
export function firstText(result: unknown): string {
  const content = (result as CallToolResult).content;
  const item = content.find((c) => c.type === 'text');
  return item?.type === 'text' ? item.text : '';
}
