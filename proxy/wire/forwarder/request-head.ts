/**
 * Request heads mcpscope refuses to forward, answering them itself (docs/transparency.md,
 * "Answered by mcpscope itself"): more header fields than it forwards, and more than one `Host`.
 *
 * Node's parser would keep only the first 1,000 header fields of a request and drop the rest
 * without a word, so the proxy apps (fastify-app.ts) let it parse one more than the limit: a
 * request with more is answered 431 instead of being forwarded cut. Of several `Host` fields Node
 * keeps the first, while the server behind may read another (RFC 9112 §3.2: "a server MUST
 * respond with a 400"): such a request is answered 400, never forwarded.
 */

/** Header fields a forwarded request may have (its raw head); past it mcpscope answers 431. */
export const MAX_REQUEST_HEADERS = 1000;

/** The response header that marks a refusal as mcpscope's own answer (recorder/own-answers.ts). */
export const REFUSED_HEADER = 'x-mcpscope-refused';

export type HeadRefusal = 'too-many-headers' | 'duplicate-host' | 'head-too-large';

/** Why mcpscope refused, in plain words, per refusal code. */
export const REFUSAL_WORDS: Record<HeadRefusal, string> = {
  'too-many-headers': `the request has more than ${MAX_REQUEST_HEADERS.toLocaleString('en-US')} header fields, more than mcpscope forwards (it answers 431 rather than forward them cut)`,
  'duplicate-host':
    'the request has more than one Host header (RFC 9112 §3.2: a server must answer it 400; the server behind might read another Host than mcpscope checked)',
  'head-too-large':
    "the request's header fields are larger than Node's HTTP parser accepts (16 KiB unless node runs with --max-http-header-size), so mcpscope could not read them to forward them",
};

export const REFUSAL_STATUS: Record<HeadRefusal, number> = { 'too-many-headers': 431, 'duplicate-host': 400, 'head-too-large': 431 };

/** Checks a request's raw head (`[name, value, name, value, …]`): O(header count), no allocation. */
export function refusedHead(rawHeaders: string[]): HeadRefusal | undefined {
  const n = rawHeaders.length;
  if (n > 2 * MAX_REQUEST_HEADERS) return 'too-many-headers';
  let hosts = 0;
  for (let i = 0; i < n; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 4 && (name === 'host' || name === 'Host' || name.toLowerCase() === 'host') && ++hosts > 1) return 'duplicate-host';
  }
  return undefined;
}

/** What can be read of a request head Node's parser gave up on (`HPE_HEADER_OVERFLOW`): enough to record and answer it. */
export interface OverflowingHead {
  refusal: HeadRefusal;
  method: string;
  url: string;
  host?: string;
}

/**
 * The start of a head Node refused as too large (the clientError's `rawPacket`): its request line,
 * its Host, and whether it was the count of fields (Node 22 refuses past `maxHeadersCount` where
 * Node 20 cut silently) or their size. Reads at most the first 64 KiB, in latin1 as Node does.
 */
export function readOverflowingHead(packet: Uint8Array | undefined): OverflowingHead {
  const text = packet ? Buffer.from(packet.buffer, packet.byteOffset, Math.min(packet.byteLength, 64 * 1024)).toString('latin1') : '';
  const lines = text.split('\r\n');
  const [method = 'GET', url = '/'] = /^[A-Z]+ \S+ HTTP\/1\.[01]$/.test(lines[0] ?? '') ? lines[0]!.split(' ') : [];
  let host: string | undefined;
  let fields = 0;
  for (let i = 1; i < lines.length && lines[i] !== ''; i++) {
    fields++;
    if (host === undefined && /^host:/i.test(lines[i]!)) host = lines[i]!.slice(5).trim();
  }
  return { refusal: fields > MAX_REQUEST_HEADERS ? 'too-many-headers' : 'head-too-large', method, url, host };
}
