/**
 * `mcpscope verify` lints the live server (proxy/files/replay/verify-lint.ts): a server that answers
 * exactly as recorded but whose tool result breaks its own outputSchema passes without --strict
 * (the violation listed) and fails with it (exit 1, the rule named); a compliant server passes
 * either way. The CLI is the built one (`npm run build` first; `npm test` does).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { startMcpscope, type Mcpscope } from '../../proxy/app/mcpscope.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';
import { fixtureOf, runCli } from '../support/fixture-cli.js';

const VERSION = '2025-06-18';

/** A JSON-answering Streamable HTTP server with one tool, `stats`; `broken` makes its structuredContent break the outputSchema. */
function statsServer(broken: boolean): Promise<ScriptedUpstream> {
  let sessions = 0;
  return startScriptedUpstream({
    'POST /mcp': (req, res, body) => {
      const m = JSON.parse(body.toString('utf8')) as { id?: number; method?: string };
      if (m.id === undefined) return void res.writeHead(202).end();
      const reply = (result: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(200, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
      };
      if (m.method === 'initialize')
        return reply(
          { protocolVersion: VERSION, capabilities: { tools: {} }, serverInfo: { name: 'stats', version: '1.0.0' } },
          { 'mcp-session-id': `sess-${++sessions}` },
        );
      if (m.method === 'tools/list')
        return reply({
          tools: [
            {
              name: 'stats',
              inputSchema: { type: 'object', properties: {} },
              outputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
            },
          ],
        });
      if (m.method === 'tools/call')
        return reply({ content: [{ type: 'text', text: '3' }], structuredContent: { count: broken ? '3' : 3 } });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } }));
    },
    'DELETE /mcp': (_req, res) => void res.writeHead(200).end(),
  });
}

describe('mcpscope verify --strict', () => {
  let broken: ScriptedUpstream;
  let fine: ScriptedUpstream;
  let scope: Mcpscope;
  let dir: string;
  let fixturePath: string;

  beforeAll(async () => {
    broken = await statsServer(true);
    fine = await statsServer(false);
    // Recorded against the broken server: the recording has the same answers verify will get.
    scope = await startMcpscope({ target: `${broken.origin}/mcp`, port: 0, uiPort: false });
    const client = new Client({ name: 'stats-recording', version: '1.0.0' }, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
    await client.connect(transport);
    await client.listTools();
    // (client.callTool would refuse the broken structuredContent before anything is recorded of it: a plain request.)
    await client.request({ method: 'tools/call', params: { name: 'stats', arguments: {} } }, ResultSchema);
    await transport.terminateSession();
    await client.close();
    const fixture = await fixtureOf(scope, 'stats-recording');
    // The recording itself shows the violation (exported with the fixture).
    expect(fixture.problems?.map((p) => p.rule)).toEqual(['tools/structured-content-schema']);
    dir = mkdtempSync(join(tmpdir(), 'mcpscope-verify-lint-'));
    fixturePath = join(dir, 'stats.fixture.json');
    writeFileSync(fixturePath, JSON.stringify(fixture));
  });
  afterAll(async () => {
    await scope?.close();
    await broken?.close();
    await fine?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('without --strict: the same answers pass, and the violation is listed', async () => {
    const r = await runCli(['verify', fixturePath, '--target', `${broken.origin}/mcp`]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('The live server broke the MCP specification 1 time (add --strict to fail the run on them):');
    expect(r.stdout).toContain(
      'tools/structured-content-schema in tools/call stats at /result/structuredContent/count (2025-06-18 server/tools#output-schema)',
    );
    expect(r.stdout).toContain('OK: every response matches the recording. 1 spec violation.');
  });

  it('with --strict: the run fails on the violation alone (exit 1), in text and in JSON', async () => {
    const r = await runCli(['verify', fixturePath, '--target', `${broken.origin}/mcp`, '--strict']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('FAIL: every response matches the recording, but the server broke the MCP specification 1 time (--strict).');
    const j = await runCli(['verify', fixturePath, '--target', `${broken.origin}/mcp`, '--strict', '--json']);
    expect(j.code).toBe(1);
    const report = JSON.parse(j.stdout) as {
      ok: boolean;
      strict: boolean;
      differences: unknown[];
      violations: { rule: string; call?: string; method?: string; path?: string; specRef: string }[];
    };
    expect(report).toMatchObject({ ok: false, strict: true, differences: [] });
    expect(report.violations).toEqual([
      expect.objectContaining({
        rule: 'tools/structured-content-schema',
        call: 'tools/call stats',
        method: 'tools/call',
        path: '/result/structuredContent/count',
        specRef: '2025-06-18 server/tools#output-schema',
      }),
    ]);
  });

  it('a compliant server passes with --strict, its one difference reported as such', async () => {
    const r = await runCli(['verify', fixturePath, '--target', `${fine.origin}/mcp`, '--strict']);
    // structuredContent.count "3" → 3 is a difference of the answer, not a violation.
    expect(r.stdout).not.toContain('broke the MCP specification');
    expect(r.stdout).toContain('tools/call stats › structuredContent.count: "3" → 3');
    expect(r.code).toBe(1);
  });
});
