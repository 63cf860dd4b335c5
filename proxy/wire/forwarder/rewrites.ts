/**
 * Reverse mode's documented modifications (docs/transparency.md): where a client would otherwise
 * leave the proxy, the upstream's origin is mapped to the origin the client reached the proxy on
 * (the validated Host it used: `localhost:P`, `127.0.0.1:P` or `[::1]:P`) — in the legacy
 * `endpoint` event, OAuth `resource_metadata` challenges, OAuth metadata documents and
 * `Location` headers. Each change is recorded as a `modification`. Forward mode uses none of it:
 * there the client keeps the server's real URL and nothing needs rewriting.
 */
import { PassThrough, Transform, type Readable, type TransformCallback } from 'node:stream';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { WireRecord } from '../capture/wire-records.js';
import { now } from '../capture/clock.js';
import { EndpointRewriter, originRewriter } from '../../core/parse/endpoint-rewriter.js';
import {
  metadataTooDeep,
  oauthMetadataKind,
  rewriteLocation,
  rewriteMetadataJson,
  rewriteWwwAuthenticate,
  type OAuthMetadataKind,
} from '../../core/parse/oauth-rewrite.js';
import { MAX_JSON_DEPTH } from '../../core/parse/json-depth.js';
import { upstreamBrokeOff } from './upstream-errors.js';
import { CLIENT_CLOSED, clientAbort } from './drain.js';
import { isEncoded, isJsonType } from './headers.js';

/** OAuth metadata documents are held whole (to rewrite them) up to this size; bigger ones stream through untouched. */
export const METADATA_MAX_BYTES = 1024 * 1024;
const MAX_REMEMBERED_PATHS = 64;

export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  stream: Readable;
}

type PipeBody = (xid: string, stages: (Readable | Transform)[], raw: ServerResponse) => void;

export interface ResponseRewrites {
  /** `WWW-Authenticate` and `Location` (headers only: no buffering). */
  headers(xid: string, pathname: string, status: number, headers: Record<string, string | string[]>, proxyOrigin: string): void;
  /** Which OAuth metadata document this response is, if it is one to rewrite. */
  metadataKind(method: string, pathname: string, res: UpstreamResponse, contentType: string): OAuthMetadataKind | null;
  relayMetadata(
    xid: string,
    pathname: string,
    kind: OAuthMetadataKind,
    res: UpstreamResponse,
    raw: ServerResponse,
    headers: Record<string, string | string[]>,
    proxyOrigin: string,
    pipeBody: PipeBody,
  ): void;
  /** A stage rewriting a legacy SSE stream's absolute `endpoint` event. */
  endpointStage(xid: string, requestUrl: string, proxyOrigin: string): Transform;
}

/** The rewrites of one reverse proxy in front of `upstreamOrigin`. */
export function createRewrites(upstreamOrigin: string, capture: (record: WireRecord) => void): ResponseRewrites {
  /** Paths a rewritten `resource_metadata` pointed at (metadata need not live under /.well-known). */
  const metadataPaths = new Set<string>();

  function rememberMetadataPaths(wwwAuthenticate: string, proxyOrigin: string): void {
    for (const m of wwwAuthenticate.matchAll(/resource_metadata\s*=\s*"((?:[^"\\]|\\.)*)"/gi)) {
      try {
        const u = new URL(m[1].replace(/\\(.)/g, '$1'));
        if (u.origin !== new URL(proxyOrigin).origin) continue;
        if (metadataPaths.size >= MAX_REMEMBERED_PATHS) metadataPaths.delete(metadataPaths.values().next().value as string);
        metadataPaths.add(u.pathname);
      } catch {
        /* not a URL */
      }
    }
  }

  return {
    headers(xid, pathname, status, headers, proxyOrigin) {
      const map = originRewriter(upstreamOrigin, proxyOrigin);
      const www = headers['www-authenticate'];
      if ((status === 401 || status === 403) && www !== undefined) {
        const values = Array.isArray(www) ? www : [www];
        let changed = false;
        const next = values.map((v) => {
          const after = rewriteWwwAuthenticate(v, map);
          if (after === null) return v;
          changed = true;
          capture({
            t: 'modification',
            xid,
            ts: now(),
            what: 'www-authenticate-rewrite',
            before: v,
            after,
            text: `The ${status} from ${pathname} named its OAuth protected-resource metadata on the upstream's origin (resource_metadata); mcpscope pointed it at its own origin (${proxyOrigin}, as the client addressed it) so the client's OAuth discovery goes through the proxy.`,
          });
          rememberMetadataPaths(after, proxyOrigin);
          return after;
        });
        if (changed) headers['www-authenticate'] = Array.isArray(www) ? next : next[0];
      }
      const location = headers['location'];
      if (typeof location === 'string') {
        const after = rewriteLocation(location, map);
        if (after !== null) {
          headers['location'] = after;
          capture({
            t: 'modification',
            xid,
            ts: now(),
            what: 'location-rewrite',
            before: location,
            after,
            text: `The ${status} from ${pathname} redirected to the upstream's own origin; mcpscope pointed the Location at its own origin (${proxyOrigin}) so the client keeps going through the proxy.`,
          });
        }
      }
    },

    metadataKind(method, pathname, res, contentType) {
      if (method !== 'GET' || res.statusCode !== 200 || !isJsonType(contentType) || isEncoded(res.headers)) return null;
      return oauthMetadataKind(pathname) ?? (metadataPaths.has(pathname) ? 'protected-resource' : null);
    },

    /**
     * An OAuth metadata document (small JSON): held whole (up to METADATA_MAX_BYTES), its
     * upstream-origin URLs mapped to the proxy's, `Content-Length` fixed, then forwarded. Past the
     * bound, or when the upstream breaks off, what was held is forwarded as it came.
     */
    relayMetadata(xid, pathname, kind, res, raw, headers, proxyOrigin, pipeBody) {
      const held: Buffer[] = [];
      let size = 0;
      let settled = false;
      const source = res.stream;
      const cleanup = () => {
        source.off('data', onData);
        source.off('end', onEnd);
        // onError stays: it ignores errors once settled, and keeps a late one from going unhandled.
        raw.off('close', onClientClose);
      };
      const onData = (chunk: Buffer) => {
        held.push(chunk);
        size += chunk.length;
        if (size > METADATA_MAX_BYTES) {
          // Too big for a metadata document: forward it untouched, streaming from here on.
          settled = true;
          cleanup();
          source.pause();
          const prefix = new PassThrough();
          prefix.write(Buffer.concat(held));
          raw.writeHead(res.statusCode, headers);
          pipeBody(xid, [source, prefix], raw);
        }
      };
      const onEnd = () => {
        if (settled) return;
        settled = true;
        cleanup();
        const body = Buffer.concat(held);
        const text = body.toString('utf8');
        // Only a document that is valid UTF-8 (it round-trips) is rewritten, and not one nested too deep to be metadata.
        const utf8 = Buffer.from(text, 'utf8').equals(body);
        const tooDeep = utf8 ? metadataTooDeep(text) : undefined;
        const result = utf8 && tooDeep === undefined ? rewriteMetadataJson(text, originRewriter(upstreamOrigin, proxyOrigin)) : null;
        if (tooDeep !== undefined) {
          capture({
            t: 'modification',
            xid,
            ts: now(),
            what: 'oauth-metadata-not-rewritten',
            before: `a JSON document nested ${tooDeep} levels deep`,
            after: 'forwarded unchanged',
            text: `The OAuth metadata at ${pathname} is nested ${tooDeep} levels deep, more than the ${MAX_JSON_DEPTH} levels mcpscope reads, so mcpscope did not map its URLs to its own origin: it was forwarded unchanged. A client may then leave the proxy for the upstream's origin.`,
          });
        }
        let out = body;
        if (result) {
          out = Buffer.from(result.text, 'utf8');
          headers['content-length'] = String(out.length);
          const kindText = kind === 'protected-resource' ? 'protected-resource metadata' : 'authorization-server metadata';
          capture({
            t: 'modification',
            xid,
            ts: now(),
            what: 'oauth-metadata-rewrite',
            before: text,
            after: result.text,
            text: `The OAuth ${kindText} at ${pathname} named URLs on the upstream's origin (${result.rewrites.map((r) => r.before).join(', ')}); mcpscope mapped them to its own origin (${proxyOrigin}) so the client accepts the resource and keeps its OAuth flow going through the proxy. Content-Length was adjusted. Tokens the client now obtains name the proxy, not the server: a server that validates the token audience (RFC 8707) refuses them — use forward mode (mcpscope run) to keep the server's identity.`,
          });
        }
        raw.writeHead(res.statusCode, headers);
        raw.end(out, () => capture({ t: 'response-end', xid, ts: now() }));
      };
      const onError = (err: Error) => {
        if (settled) return;
        settled = true;
        cleanup();
        capture(upstreamBrokeOff(xid, err));
        // What the client would have seen directly: the head, the bytes so far, a broken connection.
        if (!raw.headersSent) raw.writeHead(res.statusCode, headers);
        if (size > 0) raw.write(Buffer.concat(held));
        raw.destroy();
      };
      const onClientClose = () => {
        if (settled) return;
        settled = true;
        cleanup();
        capture(clientAbort(xid, CLIENT_CLOSED));
        source.destroy();
      };
      source.on('data', onData);
      source.on('end', onEnd);
      source.on('error', onError);
      raw.once('close', onClientClose);
    },

    endpointStage(xid, requestUrl, proxyOrigin) {
      const rewriter = new EndpointRewriter({ rewriteUrl: originRewriter(upstreamOrigin, proxyOrigin) });
      return new Transform({
        transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
          if (rewriter.passthrough) return cb(null, chunk);
          const { out, rewrite } = rewriter.push(chunk);
          if (rewrite) {
            capture({
              t: 'modification',
              xid,
              ts: now(),
              what: 'endpoint-rewrite',
              before: rewrite.before,
              after: rewrite.after,
              text: `The legacy SSE stream at ${requestUrl} named an absolute endpoint on the upstream's origin; mcpscope rewrote it to its own origin (${proxyOrigin}) so the client keeps posting through the proxy.`,
            });
          }
          for (const piece of out) this.push(piece);
          cb();
        },
        flush(cb: TransformCallback) {
          for (const piece of rewriter.end()) this.push(piece);
          cb();
        },
      });
    },
  };
}
