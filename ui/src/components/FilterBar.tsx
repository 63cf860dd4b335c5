/**
 * Toolbar above the timeline: view switch, method (with suggestions), direction, kind,
 * errors-only, spec-violations-only, minimum latency, free-text search (with its `session:` terms:
 * state/filters.ts), and the "N of M" count.
 */
import './FilterBar.css';
import { useEffect, useId, useRef, useState, type RefObject } from 'react';
import type { Filters } from '../state/types.js';
import { plural } from '../state/format.js';

export type View = 'timeline' | 'waterfall';

export interface FilterBarProps {
  filters: Filters;
  onChange(next: Filters): void;
  /** Methods seen so far (asked lazily, when the method box gets focus). */
  methods(): string[];
  shown: number;
  total: number;
  filtered: boolean;
  view: View;
  onView(view: View): void;
  searchRef?: RefObject<HTMLInputElement | null>;
  /** Debounce for typed text, ms (0 in tests). */
  debounceMs?: number;
}

/** A text input whose value is committed after a pause in typing (and at once on Enter/blur). */
function useDebounced(value: string, commit: (v: string) => void, ms: number): [string, (v: string) => void, () => void] {
  const [local, setLocal] = useState(value);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef(local);
  useEffect(() => {
    // External change (URL, clear): adopt it.
    if (value !== latest.current) {
      latest.current = value;
      setLocal(value);
    }
  }, [value]);
  const flush = () => {
    if (pending.current) clearTimeout(pending.current);
    pending.current = undefined;
    if (latest.current !== value) commit(latest.current);
  };
  const set = (v: string) => {
    latest.current = v;
    setLocal(v);
    if (pending.current) clearTimeout(pending.current);
    if (ms <= 0) commit(v);
    else pending.current = setTimeout(() => ((pending.current = undefined), commit(v)), ms);
  };
  useEffect(
    () => () => {
      if (pending.current) clearTimeout(pending.current);
    },
    [],
  );
  return [local, set, flush];
}

export function FilterBar({
  filters,
  onChange,
  methods,
  shown,
  total,
  filtered,
  view,
  onView,
  searchRef,
  debounceMs = 180,
}: FilterBarProps) {
  const listId = useId();
  const [suggestions, setSuggestions] = useState<string[]>([]);
  const [method, setMethod, flushMethod] = useDebounced(filters.method, (v) => onChange({ ...filters, method: v }), debounceMs);
  const [text, setText, flushText] = useDebounced(filters.text, (v) => onChange({ ...filters, text: v }), debounceMs);
  const [latency, setLatency, flushLatency] = useDebounced(
    filters.minLatencyMs ? String(filters.minLatencyMs) : '',
    (v) => onChange({ ...filters, minLatencyMs: Math.max(0, Number(v) || 0) }),
    debounceMs,
  );

  return (
    <div className="filterbar" role="toolbar" aria-label="Filters">
      <div className="segmented" role="tablist" aria-label="View">
        <button
          type="button"
          role="tab"
          aria-selected={view === 'timeline'}
          className={view === 'timeline' ? 'active' : ''}
          data-testid="view-timeline"
          onClick={() => onView('timeline')}
        >
          Timeline
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={view === 'waterfall'}
          className={view === 'waterfall' ? 'active' : ''}
          data-testid="view-waterfall"
          onClick={() => onView('waterfall')}
        >
          Waterfall
        </button>
      </div>
      <div className="search-box">
        <svg width="13" height="13" viewBox="0 0 16 16" aria-hidden="true">
          <circle cx="7" cy="7" r="5" fill="none" stroke="currentColor" strokeWidth="1.6" />
          <path d="M11 11 L14.5 14.5" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
        </svg>
        <input
          ref={searchRef}
          type="search"
          className="input"
          placeholder="Search payloads…  ( / )"
          data-testid="search"
          aria-label="Search payloads"
          title="Searches methods, names and payloads. session:s3 (or session:<client name>) shows only that session's rows; a row's session badge writes it."
          value={text}
          onChange={(e) => setText(e.target.value)}
          onBlur={flushText}
          onKeyDown={(e) => {
            if (e.key === 'Enter') flushText();
          }}
        />
      </div>
      <input
        className="input input-method mono"
        placeholder="method"
        list={listId}
        data-testid="filter-method"
        aria-label="Method filter"
        value={method}
        onFocus={() => setSuggestions(methods())}
        onChange={(e) => setMethod(e.target.value)}
        onBlur={flushMethod}
        onKeyDown={(e) => {
          if (e.key === 'Enter') flushMethod();
        }}
      />
      <datalist id={listId}>
        {suggestions.map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
      <select
        className="input select"
        data-testid="filter-dir"
        aria-label="Direction"
        value={filters.dir}
        onChange={(e) => onChange({ ...filters, dir: e.target.value as Filters['dir'] })}
      >
        <option value="">both directions</option>
        <option value="c2s">client → server</option>
        <option value="s2c">server → client</option>
      </select>
      <select
        className="input select"
        data-testid="filter-kind"
        aria-label="Kind"
        value={filters.kind}
        onChange={(e) => onChange({ ...filters, kind: e.target.value as Filters['kind'] })}
      >
        <option value="">all kinds</option>
        <option value="request">requests</option>
        <option value="notification">notifications</option>
        <option value="response">responses</option>
        <option value="error">errors (JSON-RPC)</option>
        <option value="log">stderr lines (stdio)</option>
      </select>
      <label className={`toggle${filters.errorsOnly ? ' on' : ''}`} title="Only rows with an error, a tool error or a protocol problem">
        <input
          type="checkbox"
          data-testid="filter-errors"
          checked={filters.errorsOnly}
          onChange={(e) => onChange({ ...filters, errorsOnly: e.target.checked })}
        />
        <span>
          Errors<span className="toggle-more"> only</span>
        </span>
      </label>
      <label
        className={`toggle toggle-spec${filters.violationsOnly ? ' on' : ''}`}
        title="Only messages that broke the MCP specification (the linter's spec violations)"
      >
        <input
          type="checkbox"
          data-testid="filter-violations"
          checked={filters.violationsOnly === true}
          onChange={(e) => onChange({ ...filters, violationsOnly: e.target.checked })}
        />
        <span>
          Violations<span className="toggle-more"> only</span>
        </span>
      </label>
      <label className="latency" title="Only calls at least this slow">
        ≥
        <input
          type="number"
          min={0}
          step={50}
          className="input input-latency mono"
          placeholder="0"
          data-testid="filter-latency"
          aria-label="Minimum latency in ms"
          value={latency}
          onChange={(e) => setLatency(e.target.value)}
          onBlur={flushLatency}
          onKeyDown={(e) => {
            if (e.key === 'Enter') flushLatency();
          }}
        />
        ms
      </label>
      {filtered ? (
        <button
          type="button"
          className="link-button reset"
          onClick={() =>
            onChange({ ...filters, method: '', dir: '', kind: '', errorsOnly: false, violationsOnly: false, minLatencyMs: 0, text: '' })
          }
          title="Clear the filters (keeps the session)"
        >
          reset
        </button>
      ) : null}
      <span className="spacer" />
      <span className="row-count" data-testid="row-count">
        {filtered ? `${shown} of ${total}` : plural(shown, 'row')}
      </span>
    </div>
  );
}
