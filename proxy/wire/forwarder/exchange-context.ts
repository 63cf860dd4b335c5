/**
 * What the forwarding keeps per exchange (hung on the fastify request), and where a request goes
 * (its route): the reverse proxy routes every request to its one target, the forward proxy to
 * the origin the client named (absolute-form) or tunnelled to (CONNECT).
 */
import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import type { ResponseRewrites } from './rewrites.js';
import type { WireSessionKey } from '../../core/rules/breakpoint-types.js';

export interface Route {
  /** The upstream origin the request is sent to (http(s)://host:port). */
  upstreamOrigin: string;
  /** The Host header sent upstream; unset: the client's, as it came. */
  upstreamHost?: string;
  /** The session's target as recorded (the reverse proxy's --target URL; in forward mode the origin). */
  target: string;
  targetName?: string;
  /** The origin the client reached the proxy on (reverse mode), or the server's origin (forward mode: the client addressed the server). */
  proxyOrigin: string;
  /** Reverse mode's documented rewrites (docs/transparency.md); unset: no byte is changed. */
  rewrites?: ResponseRewrites;
  /** Forward mode: the client addressed a proxy, so credentials meant for the proxy (Proxy-Authorization) are not passed on. */
  forward?: boolean;
}

export interface ExchangeContext {
  xid: string;
  route: Route;
  /** The first bytes of the request body, kept only to name the JSON-RPC id in a 502 we must answer ourselves. */
  head: Buffer[];
  headBytes: number;
  abort: UpstreamAbort;
  responded: boolean;
  onEarlyClose?: () => void;
  /** Set by a before-upstream step (a drop-stream fault): relays this exchange's event stream itself, instead of the forwarder's pipe. */
  relayStream?: (stream: Readable, raw: ServerResponse) => void;
  // Breakpoints only (proxy/addons/breakpoints/wire/http-holds.ts), set while rules exist:
  /** The requests this POST carried (`typeof id:id` → method, name): a response on its stream answers one. */
  calls?: Map<string, { method?: string; name?: string }>;
  /** The session as the wire names it. */
  wire?: WireSessionKey;
  /** Legacy HTTP+SSE stream: the endpoint its `endpoint` event named (path and query). */
  legacyEndpoint?: string;
  /** mcpscope's own request (`x-mcpscope-origin: send`): server requests on its stream are held for the user. */
  ownSend?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    mcpscope?: ExchangeContext;
  }
}

/**
 * Aborts one upstream request (undici takes an EventEmitter with `aborted` as its signal). Cheaper
 * per request than an AbortController, which would also build a DOMException on every abort.
 */
export class UpstreamAbort extends EventEmitter {
  aborted = false;
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}
