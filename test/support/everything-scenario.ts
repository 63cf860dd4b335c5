/**
 * The acceptance scenario against @modelcontextprotocol/server-everything with the official SDK
 * client: tools, echo, get-sum, a long-running operation with progress alongside a fast echo
 * (out-of-order completion), optionally a sampling request answered by the client, prompts,
 * resources and ping. Run once directly and once through mcpscope, the results must be equal.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';

export const LONG_STEPS = 4;

export interface ScenarioOptions {
  clientName: string;
  /** Streamable HTTP (default) or the legacy HTTP+SSE transport. */
  mode?: 'streamableHttp' | 'sse';
  /** The transport's fetch (a forward proxy's, say). */
  fetch?: (url: string | URL, init?: RequestInit) => Promise<Response>;
  /** Also call `trigger-sampling-request`, answered by the client's sampling handler. */
  sampling?: boolean;
}

export async function everythingScenario(url: string, o: ScenarioOptions) {
  const client = new Client({ name: o.clientName, version: '1.0.0' }, { capabilities: o.sampling ? { sampling: {} } : {} });
  if (o.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
      role: 'assistant',
      model: 'test-model',
      content: { type: 'text', text: `sampled ${req.params.maxTokens}` },
    }));
  }
  const extra = o.fetch ? { fetch: o.fetch } : {};
  const transport = o.mode === 'sse' ? new SSEClientTransport(new URL(url), extra) : new StreamableHTTPClientTransport(new URL(url), extra);
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'through the looking glass' } });
    const sum = await client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } });
    const order: string[] = [];
    const progress: Progress[] = [];
    const longCall = client
      .callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.4, steps: LONG_STEPS } }, undefined, {
        onprogress: (p) => progress.push(p),
      })
      .then((r) => (order.push('long'), r));
    const fastCall = client.callTool({ name: 'echo', arguments: { message: 'fast' } }).then((r) => (order.push('fast'), r));
    const [long, fast] = await Promise.all([longCall, fastCall]);
    const sampled = o.sampling
      ? await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'say something', maxTokens: 7 } })
      : undefined;
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
    const resources = (await client.listResources()).resources.map((r) => r.uri).sort();
    const ping = await client.ping();
    return {
      server: client.getServerVersion(),
      tools,
      echo,
      sum,
      long,
      fast,
      completionOrder: order,
      progress: progress.map((p) => p.progress),
      sampled,
      prompts,
      resources,
      ping,
    };
  } finally {
    if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
    await client.close();
  }
}
