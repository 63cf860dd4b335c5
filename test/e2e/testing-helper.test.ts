/**
 * `mcpscope/testing` as docs/testing-with-fixtures.md shows it: a client's test suite running
 * against a recorded server in a few lines. The fixture is recorded here first (the demo server
 * through mcpscope), standing in for the file a user would export and check in.
 * The last test imports the package by its public name (`mcpscope/testing`, through package.json
 * "exports" into dist/), so it needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { FixtureError, loadFixture, startMockServer } from '../../proxy/app/testing.js';
import { startDemoServer } from '../../proxy/app/demo/demo-server.js';
import { startMcpscope } from '../../proxy/app/mcpscope.js';
import { exportFixture } from '../../proxy/files/export/export-fixture.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let dir: string;
let fixturePath: string;

beforeAll(async () => {
  // Record: a client talks to the demo server through mcpscope; export the session.
  const demo = await startDemoServer({ port: 0 });
  const scope = await startMcpscope({ target: demo.url, port: 0, uiPort: false });
  const client = new Client({ name: 'recorder', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(scope.proxy.url));
  await client.connect(transport);
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  await transport.terminateSession();
  await client.close();
  const session = await scope.waitFor((s) => [...s.sessions.values()].find((x) => x.status === 'closed'));
  dir = mkdtempSync(join(tmpdir(), 'mcpscope-helper-'));
  fixturePath = join(dir, 'demo-session.fixture.json');
  writeFileSync(fixturePath, JSON.stringify(exportFixture(scope.store, session.id), null, 2));
  await scope.close();
  await demo.close();
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// --- the example from docs/testing-with-fixtures.md (only the fixture path differs) -----------------

describe('my MCP client against a recorded server', () => {
  let server: Awaited<ReturnType<typeof startMockServer>>;
  beforeAll(async () => {
    server = await startMockServer(fixturePath);
  });
  afterAll(() => server.close());

  it('lists the recorded tools and calls one', async () => {
    const client = new Client({ name: 'my-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
    await client.close();
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('mcpscope/testing', () => {
  it('loadFixture explains a bad file', () => {
    expect(() => loadFixture(join(dir, 'missing.json'))).toThrow(FixtureError);
    expect(() => loadFixture(join(dir, 'missing.json'))).toThrow(/missing\.json: no such file/);
    const wrong = join(dir, 'wrong.json');
    writeFileSync(wrong, JSON.stringify({ format: 'mcpscope-fixture', version: 7, messages: [] }));
    expect(() => loadFixture(wrong)).toThrow(
      /fixture version 7 is not supported by this mcpscope \(it reads version 1\); upgrade mcpscope/,
    );
  });

  it('is importable by its package name (package.json "exports" → dist)', async () => {
    const script = `
      import { startMockServer, loadFixture } from 'mcpscope/testing';
      import { Client } from '@modelcontextprotocol/sdk/client/index.js';
      import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
      const server = await startMockServer(loadFixture(process.argv[1]));
      const client = new Client({ name: 'pkg', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      const r = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      process.stdout.write(JSON.stringify(r.content));
      await client.close();
      await server.close();
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, fixturePath], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((r) => child.once('close', r));
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual([{ type: 'text', text: 'hi' }]);
  });
});
