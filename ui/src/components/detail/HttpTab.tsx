/**
 * The HTTP tab: each exchange's request and response heads, headers with their meanings, hints and
 * previews.
 */
import type { TimelineStore } from '../../state/store.js';
import type { ExchangeInfo } from '../../state/types.js';
import { describeHeader } from '../../../../proxy/core/annotate/http-hints.js';
import { formatBytes, formatClock, formatMs, jsonText } from '../../state/format.js';
import { Vis } from '../VisibleText.js';
import { CarrierLabel, ExchangeLabel, HintList } from './shared.js';
import { RawText } from './RawTab.js';

function HeaderTable({ title, headers }: { title: string; headers: Record<string, string | string[]> | undefined }) {
  const entries = headers ? Object.entries(headers) : [];
  return (
    <div className="panel">
      <div className="panel-head">
        <span className="panel-title">{title}</span>
        <span className="muted">{entries.length}</span>
      </div>
      {entries.length === 0 ? (
        <div className="placeholder">none</div>
      ) : (
        <table className="table headers-table">
          <tbody>
            {entries.map(([name, value]) => {
              const meaning = describeHeader(name);
              return (
                <tr key={name}>
                  <td className="h-name mono">
                    <Vis text={name} />
                  </td>
                  <td className="h-value mono">
                    <Vis text={Array.isArray(value) ? value.join(', ') : value} />
                  </td>
                  <td className="h-meaning">{meaning ?? ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function HttpTab({ store, exchanges }: { store: TimelineStore; exchanges: ExchangeInfo[] }) {
  if (exchanges.length === 0)
    return <div className="placeholder">No HTTP exchange is linked to this row (stdio traffic, or the exchange was cleared).</div>;
  return (
    <div className="http">
      {exchanges.map((x) => {
        const mods = store.modificationsOf(x.id);
        return (
          <div className="exchange" key={x.id}>
            <div className="exchange-line">
              <span className="http-method mono">
                <Vis text={x.method} />
              </span>
              <span className="mono http-url">
                <Vis text={x.url} />
              </span>
              {x.status !== undefined ? (
                <span className={`http-status mono s${Math.floor(x.status / 100)}xx`}>{x.status}</span>
              ) : (
                <span className="badge st-pending">waiting</span>
              )}
              <span className="muted">
                <ExchangeLabel id={x.id} />
              </span>
            </div>
            <dl className="kv">
              {x.upstreamUrl ? (
                <>
                  <dt>Upstream</dt>
                  <dd className="mono">
                    <Vis text={x.upstreamUrl} />
                  </dd>
                </>
              ) : null}
              <dt title="How the messages of this exchange travelled: in the request body, a JSON answer, or an SSE event stream">
                Carried as
              </dt>
              <dd>
                <CarrierLabel carrier={x.carrier} />
                {x.carrier ? <span className="mono muted"> ({x.carrier})</span> : null}
              </dd>
              <dt title="Content-Type of the request → of the response">Types</dt>
              <dd className="mono">
                <Vis text={x.requestType ?? '—'} /> → <Vis text={x.responseType ?? '—'} />
              </dd>
              <dt>Timing</dt>
              <dd className="mono">
                started {formatClock(x.startedAt)}
                {x.respondedAt !== undefined ? ` · head +${formatMs(x.respondedAt - x.startedAt)}` : ''}
                {x.endedAt !== undefined ? ` · ended +${formatMs(x.endedAt - x.startedAt)}` : ' · open'}
              </dd>
              <dt>Bytes</dt>
              <dd className="mono">
                ↑ {formatBytes(x.requestBytes)} · ↓ {formatBytes(x.responseBytes)}
                {x.truncated ? ' (truncated)' : ''}
              </dd>
              {x.aborted ? (
                <>
                  <dt>Aborted</dt>
                  <dd className="err-text">by the {x.aborted}</dd>
                </>
              ) : null}
              {x.error ? (
                <>
                  <dt>Error</dt>
                  <dd className="err-text">
                    <Vis text={x.error} multiline />
                  </dd>
                </>
              ) : null}
              {x.resumes ? (
                <>
                  <dt>Resumes</dt>
                  <dd className="mono">
                    {x.resumes}
                    {x.lastEventId !== undefined ? (
                      <>
                        {' after event '}
                        <Vis text={jsonText(x.lastEventId, 80)} />
                      </>
                    ) : null}
                  </dd>
                </>
              ) : null}
            </dl>
            <HintList hints={x.hints} />
            {mods.map((m) => (
              <div className="note warn" key={m.seq}>
                <b>mcpscope changed the bytes ({m.what}):</b> <Vis text={m.text} multiline />
                <div className="mono mod-diff">
                  <div>
                    − <Vis text={m.before} />
                  </div>
                  <div>
                    + <Vis text={m.after} />
                  </div>
                </div>
              </div>
            ))}
            <div className="headers-grid">
              <HeaderTable title="Request headers" headers={x.requestHeaders} />
              <HeaderTable title="Response headers" headers={x.responseHeaders} />
            </div>
            <BodyPanel title="Request body (not JSON-RPC)" text={x.requestPreview} />
            <BodyPanel title="Response body (not JSON-RPC)" text={x.responsePreview} />
          </div>
        );
      })}
    </div>
  );
}

/** A body mcpscope kept as text (nothing when it kept none). */
function BodyPanel({ title, text }: { title: string; text: string | undefined }) {
  if (text === undefined) return null;
  return (
    <div className="panel">
      <div className="panel-head">
        <span className="panel-title">{title}</span>
      </div>
      <RawText text={text} />
    </div>
  );
}
