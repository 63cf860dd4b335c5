/** verify's spec linter: the server's messages are judged (paired with the client's requests), the verify client's never. */
import { describe, expect, it } from 'vitest';
import { VerifyLint, formatLintNotes, formatViolations } from '../../../proxy/files/replay/verify-lint.js';

const init = (caps: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: caps, clientInfo: { name: 'v', version: '1' } },
});
const initResult = (caps: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 0,
  result: { protocolVersion: '2025-06-18', capabilities: caps, serverInfo: { name: 's', version: '1' } },
});

function session(clientCaps: Record<string, unknown>, serverCaps: Record<string, unknown>): VerifyLint {
  const lint = new VerifyLint('http');
  lint.sent(init(clientCaps));
  lint.received(initResult(serverCaps));
  lint.sent({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return lint;
}

describe('VerifyLint', () => {
  it('a hostile outputSchema neither hangs verify nor fails it: a pattern on RE2, a schema too slow as a note (issue 26)', () => {
    const lint = session({}, { tools: {} });
    const deep = {
      $defs: {
        n: { anyOf: [{ properties: { a: { $ref: '#/$defs/n' }, b: { type: 'number' } } }, { properties: { a: { $ref: '#/$defs/n' } } }] },
      },
      $ref: '#/$defs/n',
      type: 'object',
    };
    const tools = [
      {
        name: 'redos',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } },
      },
      { name: 'deep', inputSchema: { type: 'object' }, outputSchema: deep },
    ];
    lint.sent({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    lint.received({ jsonrpc: '2.0', id: 1, result: { tools } });
    lint.currentCall = 'tools/call redos';
    lint.sent({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'redos', arguments: {} } });
    lint.received({ jsonrpc: '2.0', id: 2, result: { content: [], structuredContent: { s: `${'a'.repeat(40)}!` } } });
    let value: Record<string, unknown> = { b: 'x' };
    for (let i = 0; i < 30; i++) value = { a: value, b: 'x' };
    lint.currentCall = 'tools/call deep';
    lint.sent({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'deep', arguments: {} } });
    lint.received({ jsonrpc: '2.0', id: 3, result: { content: [], structuredContent: value } });
    expect(lint.violations.map((v) => [v.rule, v.call])).toEqual([['tools/structured-content-schema', 'tools/call redos']]);
    expect(lint.notes.map((v) => [v.rule, v.call])).toEqual([['lint/schema-too-slow', 'tools/call deep']]);
    const lines = formatLintNotes(lint.notes);
    expect(lines[0]).toBe('  mcpscope could not check 1 thing (not a failure):');
    expect(lines[1]).toBe('    lint/schema-too-slow in tools/call deep at /result/structuredContent');
  });

  it('pairs a result with the request it answers and reports what breaks that method’s schema, with the call', () => {
    const lint = session({}, { tools: {} });
    lint.currentCall = 'tools/list';
    lint.sent({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    lint.received({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'x' }] } });
    expect(lint.violations).toEqual([
      expect.objectContaining({
        rule: 'schema/result',
        call: 'tools/list',
        method: 'tools/list',
        path: '/result/tools/0/inputSchema',
        specRef: '2025-06-18 server/tools#listing-tools',
      }),
    ]);
  });

  it('learns the capabilities from initialize: a server request the client did not declare is the server’s violation', () => {
    const lint = session({}, {});
    lint.received({ jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } });
    expect(lint.violations.map((v) => v.rule)).toEqual(['capability/sampling-not-declared']);
    expect(lint.violations[0].call).toBeUndefined();
  });

  it('never reports the verify client’s own messages (a tools/call to a server without tools is the client’s)', () => {
    const lint = session({}, {});
    lint.sent({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
    expect(lint.violations).toEqual([]);
  });

  it('a compliant exchange reports nothing; a response to no request is not judged', () => {
    const lint = session({}, { tools: {} });
    lint.sent({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    lint.received({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'x', inputSchema: { type: 'object' } }] } });
    lint.received({ jsonrpc: '2.0', id: 99, result: { anything: true } });
    expect(lint.violations).toEqual([]);
  });
});

describe('formatViolations', () => {
  it('says nothing without violations, and whether they fail the run', () => {
    expect(formatViolations([], true)).toEqual([]);
    const v = { rule: 'schema/result', specRef: '2025-06-18 schema', text: 'bad', call: 'tools/list', path: '/result/tools' };
    expect(formatViolations([v], false)[0]).toMatch(/1 time \(add --strict to fail the run on them\):$/);
    expect(formatViolations([v, v], true)[0]).toMatch(/2 times \(--strict: the run fails\):$/);
    expect(formatViolations([v], true).slice(1)).toEqual([
      '    schema/result in tools/list at /result/tools (2025-06-18 schema)',
      '      bad',
    ]);
  });
});
