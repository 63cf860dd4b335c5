/**
 * Proves the real-peer harness without mcpscope in between: the SDK client and the MCP Inspector
 * CLI talk directly to @modelcontextprotocol/server-everything in Streamable HTTP and legacy SSE
 * modes. Also pins down the reference server's behaviour the proxy tests rely on (paths, tool
 * names, progress, sampling/elicitation/roots requests).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { runInspectorCli, startEverythingServer, type RunningPeer } from '../support/peers.js';
import { firstText } from '../support/mcp-results.js';

function newClient(capabilities: ConstructorParameters<typeof Client>[1] = {}): Client {
  return new Client({ name: 'mcpscope-peers-test', version: '0.0.0' }, capabilities);
}

describe('server-everything, streamableHttp mode (direct)', () => {
  let peer: RunningPeer;
  beforeAll(async () => {
    peer = await startEverythingServer('streamableHttp');
  });
  afterAll(async () => {
    await peer?.close();
  });

  it('listens on an OS-chosen 127.0.0.1 port with the endpoint at /mcp', () => {
    expect(peer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(peer.url).not.toMatch(/:3001\//);
  });

  it('answers tools/list and echo to the SDK client (StreamableHTTPClientTransport)', async () => {
    const client = newClient();
    const transport = new StreamableHTTPClientTransport(new URL(peer.url));
    await client.connect(transport);
    try {
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']));
      const echoed = await client.callTool({ name: 'echo', arguments: { message: 'hello peers' } });
      expect(firstText(echoed)).toBe('Echo: hello peers');
      const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
      expect(firstText(sum)).toBe('The sum of 2 and 3 is 5.');
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('trigger-long-running-operation sends one progress notification per step', async () => {
    const client = newClient();
    const transport = new StreamableHTTPClientTransport(new URL(peer.url));
    await client.connect(transport);
    try {
      const progress: Progress[] = [];
      const result = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, {
        onprogress: (p) => progress.push(p),
      });
      expect(firstText(result)).toContain('Steps: 3');
      expect(progress).toEqual([
        { progress: 1, total: 3 },
        { progress: 2, total: 3 },
        { progress: 3, total: 3 },
      ]);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('registers sampling/elicitation tools only for capable clients and sends the server→client requests', async () => {
    const client = newClient({ capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } });
    let resolveRoots!: () => void;
    const rootsRequested = new Promise<void>((resolve) => (resolveRoots = resolve));
    const sampled: string[] = [];
    const elicited: string[] = [];
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      resolveRoots();
      return { roots: [{ uri: 'file:///tmp/mcpscope-test', name: 'test root' }] };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const content = request.params.messages[0]?.content;
      sampled.push(content && !Array.isArray(content) && content.type === 'text' ? content.text : '?');
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'sampled answer' } };
    });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicited.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada Lovelace', check: true } };
    });
    const transport = new StreamableHTTPClientTransport(new URL(peer.url));
    await client.connect(transport);
    try {
      // The server asks for roots on its own shortly after initialization (declared capability).
      await rootsRequested;
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list']));

      const sampling = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 20 } });
      expect(sampled).toEqual(['Resource trigger-sampling-request context: hi']);
      expect(firstText(sampling)).toContain('sampled answer');

      const elicitation = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      expect(elicited).toHaveLength(1);
      expect(firstText(elicitation)).toContain('User provided the requested information');
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('the Inspector CLI lists tools and calls echo over --transport http', async () => {
    const listed = await runInspectorCli({ url: peer.url, transport: 'http', method: 'tools/list' });
    expect(listed.code, listed.stderr).toBe(0);
    const tools = (listed.json as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['echo', 'get-sum']));

    const called = await runInspectorCli({
      url: peer.url,
      transport: 'http',
      method: 'tools/call',
      toolName: 'echo',
      toolArgs: { message: 'from the inspector' },
    });
    expect(called.code, called.stderr).toBe(0);
    expect(called.json).toEqual({ content: [{ type: 'text', text: 'Echo: from the inspector' }] });
  });
});

describe('server-everything, legacy sse mode (direct)', () => {
  let peer: RunningPeer;
  beforeAll(async () => {
    peer = await startEverythingServer('sse');
  });
  afterAll(async () => {
    await peer?.close();
  });

  it('announces a relative /message?sessionId=… endpoint on GET /sse', async () => {
    const controller = new AbortController();
    const response = await fetch(peer.url, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    try {
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      while (!text.includes('\n\n')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      expect(text).toMatch(/^event: endpoint\ndata: \/message\?sessionId=[0-9a-f-]{36}\n\n/);
    } finally {
      controller.abort();
    }
  });

  it('answers tools/list and echo to the SDK client (SSEClientTransport)', async () => {
    const client = newClient();
    const transport = new SSEClientTransport(new URL(peer.url));
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'trigger-long-running-operation']));
      const echoed = await client.callTool({ name: 'echo', arguments: { message: 'over legacy sse' } });
      expect(firstText(echoed)).toBe('Echo: over legacy sse');
    } finally {
      await client.close();
    }
  });

  it('the Inspector CLI lists tools over --transport sse', async () => {
    const listed = await runInspectorCli({ url: peer.url, transport: 'sse', method: 'tools/list' });
    expect(listed.code, listed.stderr).toBe(0);
    const tools = (listed.json as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(tools).toContain('echo');
  });
});
