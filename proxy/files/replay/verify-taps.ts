/**
 * The taps `mcpscope verify` puts on the SDK client's transport: the recorded protocol version put
 * back into initialize (TapTransport), and which stream — the call's POST or the standalone GET —
 * carried each live server→client request (streamTapFetch).
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { upstreamTrust, VERIFY_UPSTREAM } from '../../wire/forwarder/upstream-tls.js';

export class TapTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private initializeId: unknown;
  initializeResult: Record<string, unknown> | undefined;
  /**
   * Progress notifications received so far, counted on the wire: the SDK client's `onprogress`
   * misses one that arrives in the same read as the response (it dispatches notifications a
   * microtask later than responses), which would make the count timing-dependent.
   */
  progressReceived = 0;

  constructor(
    private readonly inner: Transport,
    private readonly protocolVersion: string | undefined,
    /** Sees every message both ways, as sent and as received (verify's spec linter). */
    private readonly tap?: { sent(message: unknown): void; received(message: unknown): void },
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
    inner.onmessage = (message, extra) => {
      const m = message as Record<string, unknown>;
      if (this.initializeId !== undefined && m.id === this.initializeId && 'result' in m)
        this.initializeResult = m.result as Record<string, unknown>;
      if (m.method === 'notifications/progress') this.progressReceived++;
      this.tap?.received(message);
      this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion = (version: string): void => {
    this.inner.setProtocolVersion?.(version);
  };

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Record<string, unknown>;
    if (m.method === 'initialize' && 'id' in m) {
      this.initializeId = m.id;
      if (this.protocolVersion)
        message = { ...m, params: { ...(m.params as object), protocolVersion: this.protocolVersion } } as unknown as JSONRPCMessage;
    }
    this.tap?.sent(message);
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  async terminate(): Promise<void> {
    if (this.inner instanceof StreamableHTTPClientTransport && this.inner.sessionId !== undefined) await this.inner.terminateSession();
  }
}

export function streamTapFetch(note: (id: unknown, stream: 'post' | 'get') => void, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const type = response.headers.get('content-type') ?? '';
    if (!response.ok || !response.body || !/^\s*text\/event-stream/i.test(type)) return response;
    const stream: 'post' | 'get' = (init?.method ?? 'GET').toUpperCase() === 'GET' ? 'get' : 'post';
    const decoder = new TextDecoder();
    let pending = '';
    let data: string[] = [];
    const dispatch = (text: string) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return;
      }
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
        const msg = m as Record<string, unknown> | null;
        if (msg && typeof msg === 'object' && typeof msg.method === 'string' && msg.id !== undefined && msg.id !== null)
          note(msg.id, stream);
      }
    };
    const feed = (text: string) => {
      pending += text;
      for (;;) {
        const match = /\r\n|\r|\n/.exec(pending);
        // A CR at the very end may be the first half of CRLF: wait for the next chunk.
        if (!match || (match[0] === '\r' && match.index === pending.length - 1)) return;
        const line = pending.slice(0, match.index);
        pending = pending.slice(match.index + match[0].length);
        if (line === '') {
          if (data.length > 0) dispatch(data.join('\n'));
          data = [];
        } else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
    };
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          feed(decoder.decode(chunk, { stream: true }));
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * verify's own fetch for the live server: certificates are checked whatever the environment says
 * (NODE_TLS_REJECT_UNAUTHORIZED=0 turned Node's default fetch's checks off), trusting
 * the system roots and NODE_EXTRA_CA_CERTS as Node does, and `--upstream-ca`'s certificates.
 */
export function verifiedFetch(upstreamCa?: readonly string[]): { fetch: typeof fetch; close(): Promise<void> } {
  const dispatcher = new Agent({ connect: { ...upstreamTrust(upstreamCa), ...VERIFY_UPSTREAM } });
  return {
    fetch: ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
      undiciFetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch,
    close: () => dispatcher.close(),
  };
}
