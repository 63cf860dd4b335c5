/**
 * The four model-API wire formats, and which one a request speaks: by method, path and body
 * shape — never by host name, so `ANTHROPIC_BASE_URL`, LiteLLM, Ollama's OpenAI-compatible API
 * and company gateways under a path prefix (`/proxy/anthropic/v1/messages`) are all recognised,
 * and a JSON API of another shape at the same path is left alone.
 */
import { anthropicMessages } from './anthropic-messages.js';
import type { ModelApiDialect } from './dialect.js';
import { gemini } from './gemini.js';
import { openaiChat } from './openai-chat.js';
import { openaiResponses } from './openai-responses.js';

export const modelApiDialects: readonly ModelApiDialect[] = [anthropicMessages, openaiChat, openaiResponses, gemini];

/** The dialect of a request, or undefined: POST only, its path one of a dialect's endpoints, its parsed body that dialect's shape. */
export function detectModelApi(method: string, path: string, body: unknown): ModelApiDialect | undefined {
  if (method.toUpperCase() !== 'POST') return undefined;
  // The recorder passes the path alone; a query or fragment left on it is no part of the match.
  const cut = path.search(/[?#]/);
  const bare = cut < 0 ? path : path.slice(0, cut);
  for (const dialect of modelApiDialects) {
    if (dialect.matchesPath(bare) && dialect.matchesBody(body)) return dialect;
  }
  return undefined;
}
