/**
 * Fault injection controls (issue 6, item 8): a header button ("Faults") that opens a small panel
 * listing the proxy's fault rules, with a form to add one and a button to remove each. Talks to
 * GET/POST/DELETE api/faults (state/api.ts: the page's own origin; the token cookie authenticates it).
 * Off by default: with no rules the proxy forwards everything untouched. Where the API has no
 * fault rules (an mcpscope without them answers 404) the panel says so and offers no form.
 */
import { useCallback, useEffect, useState } from 'react';
import type { FaultRule } from '../../../proxy/core/rules/fault-types.js';
import { apiFetch } from '../state/api.js';

type ActionType = FaultRule['action']['type'];

function actionText(a: FaultRule['action']): string {
  switch (a.type) {
    case 'delay':
      return `delay ${a.ms} ms`;
    case 'status':
      return `answer ${a.status}`;
    case 'drop-stream':
      return `drop SSE after ${a.afterEvents} events`;
    case 'expire-session':
      return 'expire session (404)';
  }
}

function matchText(m: FaultRule['match']): string {
  const parts = [m.method && `method ${m.method}`, m.tool && `tool ${m.tool}`, m.path && `path ${m.path}`].filter(Boolean);
  return parts.length ? parts.join(', ') : 'any request';
}

export function FaultsPanel() {
  const [open, setOpen] = useState(false);
  const [rules, setRules] = useState<FaultRule[]>([]);
  const [error, setError] = useState<string | undefined>();
  /** The API has no fault rules here (404): nothing can be added. */
  const [unavailable, setUnavailable] = useState(false);
  const [method, setMethod] = useState('tools/call');
  const [tool, setTool] = useState('');
  const [path, setPath] = useState('');
  const [type, setType] = useState<ActionType>('status');
  const [value, setValue] = useState('503');
  const [once, setOnce] = useState(true);

  const load = useCallback(async () => {
    try {
      const res = await apiFetch('faults');
      if (res.status === 404) {
        setUnavailable(true);
        setRules([]);
        setError('Fault injection is not available here: this mcpscope has no proxy whose traffic it could change.');
        return;
      }
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      setRules((await res.json()) as FaultRule[]);
      setUnavailable(false);
      setError(undefined);
    } catch (err) {
      setError(`Fault rules are not available (${(err as Error).message}).`);
    }
  }, []);

  useEffect(() => {
    if (open) void load();
  }, [open, load]);

  const add = async () => {
    const n = Number(value);
    const action =
      type === 'delay'
        ? { type, ms: n }
        : type === 'status'
          ? { type, status: n }
          : type === 'drop-stream'
            ? { type, afterEvents: n }
            : { type };
    const match = { ...(method ? { method } : {}), ...(tool ? { tool } : {}), ...(path ? { path } : {}) };
    const res = await apiFetch('faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match, action, once }),
    }).catch((err: Error) => err);
    if (res instanceof Error || !res.ok) {
      const msg =
        res instanceof Error ? res.message : (((await res.json().catch(() => ({}))) as { error?: string }).error ?? `HTTP ${res.status}`);
      setError(`Could not add the rule: ${msg}`);
      return;
    }
    await load();
  };

  const remove = async (id: string) => {
    await apiFetch(`faults/${encodeURIComponent(id)}`, { method: 'DELETE' }).catch(() => undefined);
    await load();
  };

  const needsValue = type !== 'expire-session';
  return (
    <div className="menu-anchor">
      <button
        type="button"
        className={`btn${rules.length > 0 ? ' btn-primary' : ''}`}
        data-testid="faults"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        title="Fault injection: make the proxy delay, fail, drop a stream or expire a session, to test your client"
      >
        Faults{rules.length > 0 ? ` (${rules.length})` : ''}
      </button>
      {open ? (
        <div className="menu" role="dialog" aria-label="Fault injection" data-testid="faults-panel" style={{ width: 360, padding: 8 }}>
          <div className="menu-head">
            Fault injection — applied to matching requests through the proxy, each recorded as a modification.
          </div>
          {error ? (
            <p className="err-text" data-testid="faults-error">
              {error}
            </p>
          ) : null}
          {rules.length === 0 && !unavailable ? <p className="muted">No rules: traffic passes untouched.</p> : null}
          <ul data-testid="faults-list" style={{ listStyle: 'none', padding: 0, margin: '6px 0' }}>
            {rules.map((r) => (
              <li key={r.id} data-testid="fault-rule" style={{ display: 'flex', gap: 6, alignItems: 'center' }}>
                <span style={{ flex: 1 }}>
                  {matchText(r.match)} → {actionText(r.action)}
                  {r.once ? ' (once)' : ''}
                </span>
                <button
                  type="button"
                  className="btn"
                  data-testid="fault-remove"
                  onClick={() => void remove(r.id)}
                  aria-label={`Remove rule ${r.id}`}
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
          {unavailable ? null : (
            <form
              data-testid="fault-form"
              style={{ display: 'grid', gap: 4 }}
              onSubmit={(e) => {
                e.preventDefault();
                void add();
              }}
            >
              <label>
                JSON-RPC method{' '}
                <input value={method} onChange={(e) => setMethod(e.currentTarget.value)} data-testid="fault-method" placeholder="any" />
              </label>
              <label>
                Tool <input value={tool} onChange={(e) => setTool(e.currentTarget.value)} data-testid="fault-tool" placeholder="any" />
              </label>
              <label>
                Path <input value={path} onChange={(e) => setPath(e.currentTarget.value)} data-testid="fault-path" placeholder="any" />
              </label>
              <label>
                Action{' '}
                <select value={type} onChange={(e) => setType(e.currentTarget.value as ActionType)} data-testid="fault-type">
                  <option value="status">answer HTTP status</option>
                  <option value="delay">delay (ms)</option>
                  <option value="drop-stream">drop SSE stream after N events</option>
                  <option value="expire-session">expire session (404)</option>
                </select>
              </label>
              {needsValue ? (
                <label>
                  {type === 'status' ? 'Status (500, 502, 503, 404)' : type === 'delay' ? 'Milliseconds' : 'Events'}{' '}
                  <input value={value} onChange={(e) => setValue(e.currentTarget.value)} data-testid="fault-value" inputMode="numeric" />
                </label>
              ) : null}
              <label>
                <input type="checkbox" checked={once} onChange={(e) => setOnce(e.currentTarget.checked)} data-testid="fault-once" /> only
                the next matching request
              </label>
              <button type="submit" className="btn btn-primary" data-testid="fault-add">
                Add rule
              </button>
            </form>
          )}
        </div>
      ) : null}
    </div>
  );
}
