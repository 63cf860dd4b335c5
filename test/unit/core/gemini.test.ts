/**
 * The Gemini dialect (proxy/core/model-api/gemini.ts): the model from the URL path, contents with
 * function calls and responses (joined by id, else by name and order: `gemini-<n>`), tools with
 * `parameters` or `parametersJsonSchema`; responses in the wire format of the API reference
 * (`?alt=sse` data chunks; the JSON array of the same chunks without it; a whole body), fed chunk
 * by chunk and cut at every chunk.
 */
import { describe, expect, it } from 'vitest';
import { gemini as dialect } from '../../../proxy/core/model-api/gemini.js';
import { replay, sseEvents } from '../../support/sse-text.js';

const request = {
  systemInstruction: { role: 'user', parts: [{ text: 'You are Gemini CLI.' }, { text: 'Be brief.' }] },
  contents: [
    { role: 'user', parts: [{ text: 'echo hi twice' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] },
    {
      role: 'model',
      parts: [
        { text: 'Planning.', thought: true },
        { functionCall: { name: 'mcp_se_echo', args: { message: 'a' } } },
        { functionCall: { name: 'mcp_se_echo', args: { message: 'b' } } },
        { functionCall: { id: 'fc-x', name: 'other', args: {} } },
      ],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { name: 'mcp_se_echo', response: { output: 'Echo: a' } } },
        { functionResponse: { id: 'fc-x', name: 'other', response: { error: 'denied' } } },
        { functionResponse: { name: 'mcp_se_echo', response: { output: 'Echo: b' } } },
      ],
    },
  ],
  tools: [
    {
      functionDeclarations: [
        {
          name: 'mcp_se_echo',
          description: 'Echoes',
          parametersJsonSchema: { type: 'object', properties: { message: { type: 'string' } } },
        },
        { name: 'other', description: 'Other', parameters: { type: 'OBJECT' } },
      ],
    },
    { googleSearch: {} },
  ],
  toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
  generationConfig: { maxOutputTokens: 2048, temperature: 0 },
};

const url = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';
const parsed = () => dialect.parseRequest(request, url);

const chunks = [
  '{"candidates": [{"content": {"parts": [{"text": "Let me think.","thought": true}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 2400,"totalTokenCount": 2400},"modelVersion": "gemini-2.5-flash"}',
  '{"candidates": [{"content": {"parts": [{"text": "I will "}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 2400,"totalTokenCount": 2400},"modelVersion": "gemini-2.5-flash"}',
  '{"candidates": [{"content": {"parts": [{"text": "call it."}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 2400,"totalTokenCount": 2400},"modelVersion": "gemini-2.5-flash"}',
  '{"candidates": [{"content": {"parts": [{"functionCall": {"name": "mcp_se_echo","args": {"message": "hi"}}},{"functionCall": {"name": "mcp_se_echo","args": {"message": "again"}}}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 2400,"candidatesTokenCount": 31,"cachedContentTokenCount": 2000,"thoughtsTokenCount": 12,"totalTokenCount": 2443},"modelVersion": "gemini-2.5-flash","responseId": "abc"}',
];
const sse = chunks.map((c) => `data: ${c}\r\n\r\n`).join('');

describe('gemini: matching', () => {
  it('matches …:generateContent and …:streamGenerateContent (Gemini API, Vertex, Code Assist), a contents body only', () => {
    expect(dialect.matchesPath('/v1beta/models/gemini-2.5-flash:generateContent')).toBe(true);
    expect(dialect.matchesPath('/v1beta/models/gemini-2.5-flash:streamGenerateContent')).toBe(true);
    expect(dialect.matchesPath('/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent')).toBe(
      true,
    );
    expect(dialect.matchesPath('/v1internal:streamGenerateContent')).toBe(true);
    expect(dialect.matchesPath('/v1beta/models/gemini-2.5-flash:countTokens')).toBe(false);
    expect(dialect.matchesBody(request)).toBe(true);
    expect(
      dialect.matchesBody({
        model: 'models/gemini-2.5-pro',
        project: 'p',
        request: { contents: [{ role: 'user', parts: [{ text: 'x' }] }] },
      }),
    ).toBe(true);
    expect(dialect.matchesBody({ contents: 'hi' })).toBe(false);
    expect(dialect.matchesBody({ contents: [{ role: 'user', text: 'hi' }] })).toBe(false);
    expect(dialect.matchesBody({ model: 'x', messages: [] })).toBe(false);
  });
});

describe('gemini: request', () => {
  it('the model from the path; function responses joined to the calls by id, else by name and order', () => {
    const r = parsed();
    expect(r.model).toBe('gemini-2.5-flash');
    expect(r.stream).toBe(true);
    expect(r.system).toBe('You are Gemini CLI.\nBe brief.');
    expect(r.maxTokens).toBe(2048);
    expect(r.toolChoice).toBe('auto');
    expect(r.messageCount).toBe(3);
    expect(r.messageStarts).toEqual([0, 2, 6]);
    expect(r.messages[1]).toEqual({ role: 'user', kind: 'image', text: '[image/png 12 base64 characters]' });
    expect(r.messages[2]).toEqual({ role: 'assistant', kind: 'thinking', text: 'Planning.' });
    expect(r.messages.filter((m) => m.kind === 'tool-use').map((m) => m.callId)).toEqual(['gemini-0', 'gemini-1', 'fc-x']);
    expect(r.toolResults).toEqual([
      { callId: 'gemini-0', name: 'mcp_se_echo', text: 'Echo: a' },
      { callId: 'fc-x', name: 'other', text: 'denied', isError: true },
      { callId: 'gemini-1', name: 'mcp_se_echo', text: 'Echo: b' },
    ]);
    expect(r.tools.map((t) => [t.name, t.schemaText])).toEqual([
      ['mcp_se_echo', '{"type":"object","properties":{"message":{"type":"string"}}}'],
      ['other', '{"type":"OBJECT"}'],
      ['googleSearch', '{"googleSearch":{}}'],
    ]);
    expect(r.notes).toEqual([]);
    expect(dialect.parseRequest(request, '/v1beta/models/gemini-2.5-flash:generateContent').stream).toBe(false);
  });

  it('a functionResponse carrying MCP content blocks (Gemini CLI 0.61) reads as their text', () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'go' }] },
        { role: 'model', parts: [{ functionCall: { id: 'mcp_se_echo_1_0', name: 'mcp_se_echo', args: { message: 'hi' } } }] },
        {
          role: 'user',
          parts: [
            {
              functionResponse: { id: 'mcp_se_echo_1_0', name: 'mcp_se_echo', response: { content: [{ type: 'text', text: 'Echo: hi' }] } },
            },
          ],
        },
      ],
    };
    expect(dialect.parseRequest(body, url).toolResults).toEqual([{ callId: 'mcp_se_echo_1_0', name: 'mcp_se_echo', text: 'Echo: hi' }]);
  });

  it('unwraps Code Assist requests (model in the body)', () => {
    const r = dialect.parseRequest(
      { model: 'gemini-2.5-pro', project: 'p', request: { contents: [{ role: 'user', parts: [{ text: 'x' }] }] } },
      '/v1internal:streamGenerateContent?alt=sse',
    );
    expect(r.model).toBe('gemini-2.5-pro');
    expect(r.messages).toEqual([{ role: 'user', kind: 'text', text: 'x' }]);
  });
});

describe('gemini: response', () => {
  const events = sseEvents(sse);

  it('reassembles thought and text parts, calls gemini-0 and gemini-1 as the next request will name them, usage less cached', () => {
    const { parser, firsts } = replay(dialect, parsed(), events);
    expect(firsts).toEqual([0]);
    const s = parser.end(false);
    expect(s.complete).toBe(true);
    expect(s.stopReason).toBe('STOP');
    expect(s.model).toBe('gemini-2.5-flash');
    expect(s.output).toEqual([
      { role: 'assistant', kind: 'thinking', text: 'Let me think.' },
      { role: 'assistant', kind: 'text', text: 'I will call it.' },
      { role: 'assistant', kind: 'tool-use', text: '{"message":"hi"}', name: 'mcp_se_echo', callId: 'gemini-0' },
      { role: 'assistant', kind: 'tool-use', text: '{"message":"again"}', name: 'mcp_se_echo', callId: 'gemini-1' },
    ]);
    expect(s.toolCalls.map((c) => [c.id, c.arguments])).toEqual([
      ['gemini-0', { message: 'hi' }],
      ['gemini-1', { message: 'again' }],
    ]);
    expect(s.usage).toEqual({ inputTokens: 400, outputTokens: 31, cacheReadTokens: 2000, reasoningTokens: 12, totalInputTokens: 2400 });
    expect(s.notes).toEqual([]);
  });

  it('the JSON array of a stream without alt=sse reads the same', () => {
    const p = dialect.newResponse(parsed());
    p.json(JSON.parse(`[${chunks.join(',')}]`));
    const s = p.end(false);
    expect(s.complete).toBe(true);
    expect(s.toolCalls.map((c) => c.id)).toEqual(['gemini-0', 'gemini-1']);
    expect(s.output[1].text).toBe('I will call it.');
  });

  it('cut at every chunk: never throws, incomplete before the finishing chunk', () => {
    for (let k = 0; k <= events.length; k++) {
      const { parser } = replay(dialect, parsed(), events, k);
      const s = parser.end(true);
      expect(s.complete).toBe(k === events.length);
      expect(s.toolCalls.length).toBe(k === events.length ? 2 : 0);
      if (k < events.length) expect(s.notes.join(' ')).toMatch(/broke off before a chunk with a finishReason/);
    }
  });

  it('an error body, a blocked prompt, junk', () => {
    const p = dialect.newResponse(parsed());
    p.json({ error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } });
    expect(p.end(false).error).toBe('INVALID_ARGUMENT: API key not valid. Please pass a valid API key.');
    const b = dialect.newResponse(parsed());
    b.event(undefined, '{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":5}}');
    expect(b.end(false)).toMatchObject({ stopReason: 'blocked: SAFETY', complete: true });
    const j = dialect.newResponse(parsed());
    j.event(undefined, 'nope');
    j.event(undefined, '7');
    expect(j.end(true).notes.length).toBe(3);
  });

  it('a call with an id keeps it', () => {
    const p = dialect.newResponse(parsed());
    p.event(
      undefined,
      '{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"call-7","name":"f","args":{}}}]},"finishReason":"STOP"}]}',
    );
    expect(p.end(false).toolCalls).toEqual([{ id: 'call-7', name: 'f', argumentsText: '{}', arguments: {} }]);
  });
});
