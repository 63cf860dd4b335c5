/**
 * The tool form, in the manner of the MCP Inspector: the tools a session's last
 * `tools/list` answer listed, and for the one picked a form generated from its inputSchema —
 * string → text input (enum → select), number/integer → number input, boolean → checkbox,
 * object/array → JSON textarea; required inputs marked. Submitting sends `tools/call` into the
 * session through mcpscope (`POST api/sessions/:id/send`) and shows the result (SendResult).
 */
import './ToolsPanel.css';
import { useEffect, useMemo, useState } from 'react';
import type { TimelineStore } from '../state/store.js';
import type { SessionInfo } from '../state/types.js';
import {
  argsFromForm,
  checkArgs,
  fieldsOf,
  sendToSession,
  toolCallMessage,
  type FormField,
  type FormValues,
  type SendOutcome,
  type ToolInfo,
} from '../state/tool-schema.js';
import { SendResult, sessionTools } from './SendPanel.js';

export interface ToolsPanelProps {
  store: TimelineStore;
  version: number;
  sessions: readonly SessionInfo[];
  /** The session to start with ('' = the latest that listed tools). */
  sessionId: string;
  onSelect(key: string): void;
}

export function ToolsPanel({ store, version, sessions, sessionId, onSelect }: ToolsPanelProps) {
  const withTools = useMemo(() => sessions.filter((s) => sessionTools(store, s.id).length > 0), [store, sessions, version]);
  const initial = withTools.some((s) => s.id === sessionId) ? sessionId : (withTools[withTools.length - 1]?.id ?? '');
  const [session, setSession] = useState(initial);
  useEffect(() => {
    if (session === '' && initial !== '') setSession(initial);
  }, [initial, session]);
  const tools = session ? sessionTools(store, session) : [];
  const [toolName, setToolName] = useState<string | undefined>();
  const tool = tools.find((t) => t.name === toolName) ?? tools[0];

  if (withTools.length === 0) {
    return (
      <p className="muted" data-testid="tools-none">
        No session has listed its tools yet. Once a client calls <span className="mono">tools/list</span>, its tools appear here with a form
        to call each one.
      </p>
    );
  }
  return (
    <div className="tools-panel" data-testid="tools-panel">
      <label className="tools-session">
        Session
        <select value={session} onChange={(e) => setSession(e.currentTarget.value)} data-testid="tools-session">
          {withTools.map((s) => (
            <option key={s.id} value={s.id}>
              {s.id}
              {s.clientInfo?.name ? ` · ${s.clientInfo.name}` : ''}
              {s.serverInfo?.name ? ` → ${s.serverInfo.name}` : ''}
            </option>
          ))}
        </select>
      </label>
      <div className="tools-split">
        <ul className="tools-list" role="listbox" aria-label="Tools" data-testid="tools-list">
          {tools.map((t) => (
            <li key={t.name}>
              <button
                type="button"
                role="option"
                aria-selected={t === tool}
                className={`tools-item${t === tool ? ' active' : ''}`}
                data-testid="tool-item"
                data-tool={t.name}
                onClick={() => setToolName(t.name)}
                title={t.description}
              >
                <span className="mono">{t.name}</span>
                {t.description ? <span className="tools-desc">{t.description}</span> : null}
              </button>
            </li>
          ))}
        </ul>
        {tool ? (
          <ToolForm key={`${session}\0${tool.name}`} store={store} version={version} sessionId={session} tool={tool} onSelect={onSelect} />
        ) : null}
      </div>
    </div>
  );
}

function ToolForm({
  store,
  version,
  sessionId,
  tool,
  onSelect,
}: {
  store: TimelineStore;
  version: number;
  sessionId: string;
  tool: ToolInfo;
  onSelect(key: string): void;
}) {
  const fields = useMemo(() => fieldsOf(tool.inputSchema), [tool]);
  const [values, setValues] = useState<FormValues>({});
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<SendOutcome | undefined>();
  const read = argsFromForm(fields, values);
  const problems = 'error' in read ? [read.error] : checkArgs({ type: 'object', ...tool.inputSchema }, read.args);

  const submit = async () => {
    if (!('args' in read)) return;
    setBusy(true);
    setOutcome(await sendToSession(sessionId, toolCallMessage(tool.name, read.args)));
    setBusy(false);
  };

  return (
    <form
      className="tool-form"
      data-testid="tool-form"
      data-tool={tool.name}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <div className="tool-form-head">
        <b className="mono">{tool.title ?? tool.name}</b>
        {tool.description ? <p className="muted">{tool.description}</p> : null}
      </div>
      {fields.length === 0 ? <p className="muted">This tool takes no arguments.</p> : null}
      {fields.map((f) => (
        <FieldInput
          key={f.name}
          field={f}
          value={values[f.name] ?? f.initial}
          onChange={(v) => setValues((s) => ({ ...s, [f.name]: v }))}
        />
      ))}
      {problems.length > 0 ? (
        <ul className="send-problems" data-testid="tool-form-problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      <div className="send-actions">
        <button type="submit" className="btn btn-primary" data-testid="tool-call" disabled={busy || problems.length > 0}>
          {busy ? 'Calling…' : `Call ${tool.name}`}
        </button>
      </div>
      {outcome ? <SendResult store={store} version={version} outcome={outcome} onSelect={onSelect} /> : null}
    </form>
  );
}

function FieldInput({ field: f, value, onChange }: { field: FormField; value: string | boolean; onChange(v: string | boolean): void }) {
  const id = `tool-arg-${f.name}`;
  const label = (
    <span className="field-label">
      <span className="mono">{f.name}</span>
      {f.required ? (
        <span className="req" title="required">
          *
        </span>
      ) : null}
      <span className="field-type mono">{f.typeText}</span>
    </span>
  );
  let input;
  if (f.kind === 'boolean') {
    input = (
      <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} data-arg={f.name} />
    );
  } else if (f.kind === 'enum') {
    input = (
      <select id={id} value={String(value)} onChange={(e) => onChange(e.currentTarget.value)} data-arg={f.name}>
        {f.required ? null : <option value="">(not set)</option>}
        {(f.options ?? []).map((o) => (
          <option key={JSON.stringify(o)} value={JSON.stringify(o)}>
            {typeof o === 'string' ? o : JSON.stringify(o)}
          </option>
        ))}
      </select>
    );
  } else if (f.kind === 'json') {
    input = (
      <textarea
        id={id}
        className="mono"
        rows={3}
        spellCheck={false}
        value={String(value)}
        onChange={(e) => onChange(e.currentTarget.value)}
        data-arg={f.name}
      />
    );
  } else {
    input = (
      <input
        id={id}
        type={f.kind === 'string' ? 'text' : 'number'}
        step={f.kind === 'integer' ? 1 : 'any'}
        value={String(value)}
        onChange={(e) => onChange(e.currentTarget.value)}
        data-arg={f.name}
      />
    );
  }
  return (
    <div className={`field field-${f.kind}`}>
      <label htmlFor={id}>{label}</label>
      {input}
      {f.description ? <span className="field-desc muted">{f.description}</span> : null}
    </div>
  );
}
