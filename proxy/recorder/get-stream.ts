/**
 * Whose is a GET event stream that carries no session id (docs/event-schema.md, "How traffic is
 * assigned to sessions")? Two transports open one:
 * - Streamable HTTP's standalone stream, when the server is stateless (it never assigned an
 *   Mcp-Session-Id): the client sends MCP-Protocol-Version on it (required after initialize since
 *   2025-06-18), and it goes to the endpoint the client POSTs to;
 * - the legacy HTTP+SSE transport (2024-11-05) session stream, opened before anything was
 *   negotiated (so without that header), whose first event (`endpoint`) names where to POST.
 * A stream is Streamable HTTP's when the header is there, or when it goes to an endpoint that
 * accepted a Streamable HTTP POST (a 2xx: a client falling back to the legacy transport after its
 * POST was refused opens the legacy stream at the same URL); otherwise it is taken for legacy, and an
 * `endpoint` event on a stream taken for Streamable HTTP makes it legacy after all (recorder.ts).
 */
import { firstHeader, type HeaderMap } from '../wire/capture/wire-records.js';

const MAX_ENDPOINTS = 1024;

export class StreamEndpoints {
  private readonly posted = new Set<string>();

  /** A POST of a Streamable HTTP session to `endpoint` (the upstream URL without its query) was accepted. */
  notePost(endpoint: string): void {
    if (this.posted.has(endpoint)) return;
    if (this.posted.size >= MAX_ENDPOINTS) this.posted.clear();
    this.posted.add(endpoint);
  }

  /** Whether an id-less GET event stream with these request headers, to `endpoint`, is Streamable HTTP's (else legacy). */
  isStreamable(requestHeaders: HeaderMap, endpoint: string): boolean {
    return firstHeader(requestHeaders, 'mcp-protocol-version') !== undefined || this.posted.has(endpoint);
  }
}
