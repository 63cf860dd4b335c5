/**
 * proxy/recorder/message-path.ts: what a message event holds beside its JSON-RPC message — the
 * name (tool, prompt, resource URI; a response copies its request's), the error and the progress
 * text — is read off the redacted copy, so none of them keeps a secret the message itself lost
 * (issue 26, finding 7: a resources/read of https://…?access_token=… kept the URI in clear as the
 * event's name, and a JSON-RPC error's message and a progress message kept their text).
 */
import { describe, expect, it } from 'vitest';
import { json, messages, setup, sse } from '../../support/recorder-harness.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const SECRET = 'SECRET-access-token-41c7';
const URI = `https://files.example.test/doc?access_token=${SECRET}`;
const KEPT_URI = 'https://files.example.test/doc?access_token=[redacted]';

function call(options: { showSecrets?: boolean } = {}) {
  const { store, w, feed } = setup(options);
  const sh = { ...JSON_HEADERS, 'mcp-session-id': 'sess-1', 'mcp-protocol-version': '2025-06-18' };
  const x1 = w.xid();
  const read = { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: URI, _meta: { progressToken: 7 } } };
  feed([...w.send(x1, 'POST', '/mcp', sh, json(read)), w.head(x1, 200, { 'content-type': 'text/event-stream' })]);
  const progress = {
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: 7, progress: 1, message: `fetching ${URI}` },
  };
  const error = { jsonrpc: '2.0', id: 1, error: { code: -32002, message: `Resource ${URI} not found` } };
  feed([...w.chunks(x1, sse(`data: ${json(progress)}`) + sse(`data: ${json(error)}`)), w.end(x1)]);
  const x2 = w.xid();
  const subscribe = { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: URI } };
  feed([
    ...w.send(x2, 'POST', '/mcp', sh, json(subscribe)),
    ...w.reply(x2, 200, { 'content-type': 'application/json' }, json({ jsonrpc: '2.0', id: 2, result: {} })),
  ]);
  return messages(store);
}

describe('emitFrame: what a message event holds beside the message', () => {
  it('a name, an error and a progress text are kept redacted, as the message is', () => {
    const ms = call();
    expect(ms.map((m) => [m.kind, m.method, m.name])).toEqual([
      ['request', 'resources/read', KEPT_URI],
      ['notification', 'notifications/progress', undefined],
      ['error', 'resources/read', KEPT_URI],
      ['request', 'resources/subscribe', KEPT_URI],
      ['response', 'resources/subscribe', KEPT_URI],
    ]);
    expect(ms[0].jsonrpc).toMatchObject({ params: { uri: KEPT_URI } });
    expect(ms[1].progress).toEqual({ progress: 1, message: `fetching ${KEPT_URI}` });
    expect(ms[2].error).toMatchObject({ code: -32002, message: `Resource ${KEPT_URI} not found` });
    expect(JSON.stringify(ms)).not.toContain(SECRET);
  });

  it('with --show-secrets the name is shown as it came, like the message', () => {
    const ms = call({ showSecrets: true });
    expect(ms[0].name).toBe(URI);
    expect(ms[2].name).toBe(URI);
    expect(ms[2].error?.message).toBe(`Resource ${URI} not found`);
  });
});
