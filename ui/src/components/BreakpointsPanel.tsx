/**
 * Breakpoint rules: the rules mcpscope holds messages by (GET api/breakpoints), a form
 * to add one — direction, method, tool/prompt/resource name, session (the selected one by
 * default), once — and a button to remove each. Shown in the Paused panel, under the held messages.
 */
import './BreakpointsPanel.css';
import { useCallback, useEffect, useState } from 'react';
import type { Direction } from '../../../proxy/core/model/events.js';
import { addBreakpoint, loadBreakpoints, matchText, removeBreakpoint, type BreakpointRule } from '../state/breakpoints.js';

export function BreakpointsPanel({ session }: { session: string }) {
  const [rules, setRules] = useState<BreakpointRule[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [dir, setDir] = useState<Direction>('c2s');
  const [method, setMethod] = useState('tools/call');
  const [tool, setTool] = useState('');
  const [sessionId, setSessionId] = useState(session);
  const [once, setOnce] = useState(false);

  const load = useCallback(async () => {
    try {
      setRules(await loadBreakpoints());
      setError(undefined);
    } catch (err) {
      setError(`Breakpoints are not available: ${(err as Error).message}`);
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => setSessionId(session), [session]);

  const add = async () => {
    const match = {
      dir,
      ...(method.trim() ? { method: method.trim() } : {}),
      ...(tool.trim() ? { tool: tool.trim() } : {}),
      ...(sessionId.trim() ? { session: sessionId.trim() } : {}),
    };
    try {
      await addBreakpoint(match, once);
      await load();
    } catch (err) {
      setError(`Could not add the breakpoint: ${(err as Error).message}`);
    }
  };

  const remove = async (id: string) => {
    try {
      await removeBreakpoint(id);
    } catch (err) {
      setError(`Could not remove it: ${(err as Error).message}`);
    }
    await load();
  };

  return (
    <section className="paused-section" data-testid="breakpoints">
      <h3 className="paused-h">Breakpoints{rules.length > 0 ? <span className="paused-count neutral">{rules.length}</span> : null}</h3>
      {error ? (
        <p className="err-text" data-testid="breakpoints-error">
          {error}
        </p>
      ) : null}
      {rules.length === 0 && !error ? <p className="muted">No breakpoints: every message passes untouched.</p> : null}
      <ul className="bp-list" data-testid="breakpoint-list">
        {rules.map((r) => (
          <li key={r.id} className="bp-rule" data-testid="breakpoint-rule">
            <span className="bp-text mono">
              {matchText(r.match)}
              {r.once ? <span className="muted"> (once)</span> : null}
            </span>
            <button type="button" className="btn btn-sm" data-testid="breakpoint-remove" onClick={() => void remove(r.id)}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form
        className="bp-form"
        data-testid="breakpoint-form"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <label>
          Direction
          <select value={dir} onChange={(e) => setDir(e.currentTarget.value as Direction)} data-testid="bp-dir">
            <option value="c2s">client → server</option>
            <option value="s2c">server → client</option>
          </select>
        </label>
        <label>
          Method
          <input value={method} onChange={(e) => setMethod(e.currentTarget.value)} placeholder="any" data-testid="bp-method" />
        </label>
        <label>
          Tool / name
          <input value={tool} onChange={(e) => setTool(e.currentTarget.value)} placeholder="any" data-testid="bp-tool" />
        </label>
        <label>
          Session
          <input value={sessionId} onChange={(e) => setSessionId(e.currentTarget.value)} placeholder="any" data-testid="bp-session" />
        </label>
        <label className="bp-once">
          <input type="checkbox" checked={once} onChange={(e) => setOnce(e.currentTarget.checked)} data-testid="bp-once" /> only the next
          one
        </label>
        <button type="submit" className="btn btn-primary" data-testid="bp-add">
          Add breakpoint
        </button>
      </form>
    </section>
  );
}
