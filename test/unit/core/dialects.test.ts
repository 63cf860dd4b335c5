/**
 * detectModelApi (proxy/core/model-api/dialects.ts): by method, path and body shape, never by host —
 * each API under the paths its clients and gateways use, and what is left alone.
 */
import { describe, expect, it } from 'vitest';
import { detectModelApi, modelApiDialects } from '../../../proxy/core/model-api/dialects.js';

const anthropic = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }] };
const chat = {
  model: 'llama3.2',
  messages: [
    { role: 'system', content: 's' },
    { role: 'user', content: 'hi' },
  ],
};
const responses = { model: 'gpt-5', input: [{ role: 'user', content: 'hi' }] };
const gemini = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };

const api = (method: string, path: string, body: unknown) => detectModelApi(method, path, body)?.api;

describe('detectModelApi', () => {
  it('lists the four dialects', () => {
    expect(modelApiDialects.map((d) => d.api)).toEqual(['anthropic-messages', 'openai-chat', 'openai-responses', 'gemini']);
  });

  it('finds each API at its endpoint under any base URL or gateway prefix', () => {
    expect(api('POST', '/v1/messages', anthropic)).toBe('anthropic-messages');
    expect(api('POST', '/proxy/anthropic/v1/messages', anthropic)).toBe('anthropic-messages');
    expect(api('POST', '/v1/messages?beta=true', anthropic)).toBe('anthropic-messages');
    expect(api('POST', '/v1/chat/completions', chat)).toBe('openai-chat'); // Ollama, LiteLLM
    expect(api('POST', '/api/openai/v1/chat/completions', chat)).toBe('openai-chat');
    expect(api('POST', '/v1/responses', responses)).toBe('openai-responses');
    expect(api('POST', '/backend-api/codex/responses', responses)).toBe('openai-responses');
    expect(api('POST', '/v1beta/models/gemini-2.5-flash:streamGenerateContent', gemini)).toBe('gemini');
    expect(api('post', '/v1beta/models/gemini-2.5-flash:generateContent', gemini)).toBe('gemini');
  });

  it('leaves alone other methods, other endpoints, and a body of another shape at the same path', () => {
    expect(api('GET', '/v1/messages', anthropic)).toBeUndefined();
    expect(api('POST', '/v1/messages/count_tokens', anthropic)).toBeUndefined();
    expect(api('POST', '/v1/messages/batches', { requests: [] })).toBeUndefined();
    expect(api('POST', '/v1/messages', { channel: 'general', messages: [{ user: 'ann', text: 'hi' }] })).toBeUndefined();
    expect(api('POST', '/v1/messages', { model: 'x', messages: [{ role: 'user', content: { text: 'hi' } }] })).toBeUndefined();
    expect(api('POST', '/v1/chat/completions', { prompt: 'hi' })).toBeUndefined();
    expect(api('POST', '/v1/responses', { model: 'x', messages: [] })).toBeUndefined();
    expect(api('POST', '/v1/responses/resp_1', responses)).toBeUndefined();
    expect(api('POST', '/v1beta/models/gemini-2.5-flash:countTokens', gemini)).toBeUndefined();
    expect(api('POST', '/v1beta/models/x:generateContent', { prompt: 'hi' })).toBeUndefined();
    expect(api('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBeUndefined();
    expect(api('POST', '/v1/messages', undefined)).toBeUndefined();
  });
});
