/**
 * Small pieces the detail tabs share: a message's meta line (seq, time, carrier, exchange), its
 * payload (loaded in full when the feed sent a stub), session and event stamps, hint lists.
 */
import { useEffect, useState } from 'react';
import type { TimelineStore } from '../../state/store.js';
import type { MessageEvent } from '../../state/types.js';
import type { Hint } from '../../../../proxy/core/model/events.js';
import { formatBytes, formatClock, formatMs, jsonText } from '../../state/format.js';
import { JsonView } from '../JsonView.js';
import { Vis } from '../VisibleText.js';
import { loadFullMessage } from '../../state/api.js';
import { carrierText, dirLabel, exchangeTitle, seqTitle } from '../row-info.js';

/** First existing row among candidate keys. */
export function findRowKey(store: TimelineStore, keys: string[]): string | undefined {
  for (const k of keys) if (store.row(k)) return k;
  return undefined;
}

export function MessageMeta({ m, base }: { m: MessageEvent; base?: number }) {
  return (
    <div className="msg-meta">
      <Seq seq={m.seq} />
      <span>{dirLabel(m.dir)}</span>
      <span className="mono">{formatClock(m.ts)}</span>
      {base !== undefined && m.ts !== base ? (
        <span className="mono" title="after the request">
          +{formatMs(m.ts - base)}
        </span>
      ) : null}
      <span>{formatBytes(m.size)}</span>
      <CarrierLabel carrier={m.carrier} />
      {m.exchangeId ? <ExchangeLabel id={m.exchangeId} /> : null}
      {m.id !== undefined ? (
        <span className="mono" title="The JSON-RPC id: the client or server pairs a response with its request by it">
          id <Vis text={jsonText(m.id, 80)} />
        </span>
      ) : null}
      {m.batch ? (
        <span>
          batch {m.batch.index + 1}/{m.batch.size}
        </span>
      ) : null}
      {m.replayOf !== undefined ? (
        <span
          className="tag tag-warn"
          title={`A copy the server sent again when the client resumed the stream. The original is ${seqTitle(m.replayOf)}`}
        >
          replay of #{m.replayOf}
        </span>
      ) : null}
    </div>
  );
}

/** A seq number (`#1869`), with what it is in a tooltip. */
export function Seq({ seq }: { seq: number }) {
  return (
    <span className="mono" data-testid="seq" title={seqTitle(seq)}>
      #{seq}
    </span>
  );
}

/** How a message travelled (`post-sse`…), in plain words, the recorder's name in the tooltip. */
export function CarrierLabel({ carrier }: { carrier: string | undefined }) {
  const t = carrierText(carrier);
  return (
    <span className="carrier" data-testid="carrier" title={t.long}>
      {t.short}
    </span>
  );
}

/** An exchange id (`x257`), said to be one. */
export function ExchangeLabel({ id }: { id: string }) {
  return (
    <span className="exchange-id" data-testid="exchange-id" title={exchangeTitle(id)}>
      exchange <span className="mono">{id}</span>
    </span>
  );
}

/** A large payload arrives on the feed as a stub (`elided`): load the full message when it is shown. */
function useFullMessage(m: MessageEvent): { message: MessageEvent; loading: boolean; error?: string } {
  const [state, setState] = useState<{ seq: number; message?: MessageEvent; error?: string }>({ seq: -1 });
  useEffect(() => {
    if (!m.elided) return;
    let live = true;
    loadFullMessage(m.seq)
      .then((full) => {
        if (live) setState({ seq: m.seq, message: full });
      })
      .catch((err: unknown) => live && setState({ seq: m.seq, error: (err as Error).message }));
    return () => {
      live = false;
    };
  }, [m.seq, m.elided]);
  if (!m.elided) return { message: m, loading: false };
  if (state.seq === m.seq && state.message) return { message: state.message, loading: false };
  return { message: m, loading: state.seq !== m.seq || !state.error, error: state.seq === m.seq ? state.error : undefined };
}

export function Payload({ m, label, highlight }: { m: MessageEvent; label: string; highlight?: readonly string[] }) {
  const { message, loading, error } = useFullMessage(m);
  return (
    <>
      {m.truncated ? (
        <div className="note warn">This payload was too large to keep in full: only a stub and a prefix of the raw text were recorded.</div>
      ) : null}
      {m.elided && loading ? (
        <div className="note" data-testid="payload-loading">
          Loading {formatBytes(m.size)}…
        </div>
      ) : null}
      {error ? <div className="note warn">Could not load the full payload: {error}</div> : null}
      <JsonView value={message.jsonrpc} openDepth={4} className={`jv-${label}`} highlight={highlight} />
    </>
  );
}

/** "session s1", with what the session is to this row as its tooltip. */
export function SessionLabel({ id, title }: { id: string; title: string }) {
  return (
    <span title={title}>
      session{' '}
      <span className="mono">
        <Vis text={id} />
      </span>
    </span>
  );
}

/** The seq, time and session of an event that is not a message (a protocol problem, a stderr line). */
export function EventStamp({ seq, ts, sessionId, sessionTitle }: { seq: number; ts: number; sessionId?: string; sessionTitle: string }) {
  return (
    <>
      <Seq seq={seq} />
      <span className="mono">{formatClock(ts)}</span>
      {sessionId ? <SessionLabel id={sessionId} title={sessionTitle} /> : null}
    </>
  );
}

export function HintList({ hints }: { hints: Hint[] }) {
  if (hints.length === 0) return null;
  return (
    <ul className="hints">
      {hints.map((h, i) => (
        <li key={`${h.code}-${i}`} className={`hint lvl-${h.level}`}>
          <span className="hint-icon" aria-hidden="true">
            {h.level === 'error' ? '✕' : h.level === 'warn' ? '!' : 'i'}
          </span>
          <span className="hint-text">
            <Vis text={h.text} multiline />
          </span>
          <span className="hint-code mono">{h.code}</span>
        </li>
      ))}
    </ul>
  );
}
