/**
 * What the terminal says about upstreams mcpscope cannot reach, in plain words: once per upstream
 * (its origin) when mcpscope first has to answer in its place (502/504), and once more when the
 * upstream answers again. A store subscriber on the main thread — it reads each committed batch,
 * never the proxy's hot path — that looks only at live traffic (`isLive`: not imported captures).
 */
import type { ExchangeInfo, McpscopeEvent } from '../core/model/events.js';
import type { EventStore } from './store/event-store.js';
import { firstHeader } from '../wire/capture/wire-records.js';
import { causeOfCode } from '../wire/forwarder/upstream-errors.js';

export interface ReachabilityOptions {
  /** Receives each notice, one line without a newline (the CLI writes it to stderr). */
  notice: (line: string) => void;
  /** Whether a session is this mcpscope's own live recording (an imported capture is not). */
  isLive: (sessionId: string) => boolean;
}

/** Starts watching; returns the function that stops it. */
export function watchReachability(store: EventStore, options: ReachabilityOptions): () => void {
  /** origin → when mcpscope last had to answer in its place (the failed exchange's end). */
  const down = new Map<string, number>();
  const onBatch = (batch: readonly McpscopeEvent[]) => {
    for (const e of batch) {
      if (e.type === 'problem' && e.code === 'upstream-unreachable' && e.exchangeId !== undefined) {
        const x = store.exchanges.get(e.exchangeId);
        if (!x || x.sessionId === undefined || !options.isLive(x.sessionId)) continue;
        const url = urlOf(x);
        const origin = originOf(url);
        const known = down.has(origin);
        down.set(origin, x.endedAt ?? e.ts);
        if (!known) options.notice(`mcpscope: ${url} is not reachable (${causeOf(x)}); clients get ${x.status ?? 502} until it is.`);
      } else if (e.type === 'exchange' && down.size > 0) {
        const x = e.exchange;
        if (
          x.respondedAt === undefined ||
          x.responseHeaders === undefined ||
          isOwnAnswer(x) ||
          x.sessionId === undefined ||
          !options.isLive(x.sessionId)
        )
          continue;
        const url = urlOf(x);
        const origin = originOf(url);
        const since = down.get(origin);
        // A response head that came after the failure: the server answers again.
        if (since === undefined || x.respondedAt < since) continue;
        down.delete(origin);
        options.notice(`mcpscope: ${url} answers again.`);
      }
    }
  };
  return store.subscribe(onBatch, 'the reachability notice');
}

function isOwnAnswer(x: ExchangeInfo): boolean {
  return (
    firstHeader(x.responseHeaders, 'x-mcpscope-error') !== undefined || firstHeader(x.responseHeaders, 'x-mcpscope-fault') !== undefined
  );
}

/** The URL the request went to, without its query (it may carry credentials, even redacted it is noise). */
function urlOf(x: ExchangeInfo): string {
  const url = x.upstreamUrl || x.url;
  return url.split('?')[0];
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Why, in a few words: from the failure code of mcpscope's answer, else from the recorded error. */
function causeOf(x: ExchangeInfo): string {
  const code = firstHeader(x.responseHeaders, 'x-mcpscope-error');
  if (code !== undefined) return causeOfCode(code);
  const error = x.error ?? '';
  const at = error.indexOf(': ');
  return at >= 0 ? error.slice(at + 2) : error || 'no response';
}
