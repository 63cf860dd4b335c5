/**
 * Edit and send: a captured client→server request, without its id (mcpscope gives the
 * copy a fresh one), in an editor checked as you type; sent into its session through
 * `POST api/sessions/:id/send`. For a `tools/call` whose tool the session's last `tools/list`
 * described, the tool's arguments are listed (type, description, required) and can be inserted
 * with a click, and the arguments are checked against its inputSchema before sending.
 * `SendResult` (the answer, or why there is none, with a link to the new exchange) is shared with
 * the tool form.
 */
import './SendPanel.css';
import { useState } from 'react';
import type { TimelineStore } from '../state/store.js';
import { checkJsonRpc } from '../../../proxy/core/rules/action-checks.js';
import { jsonPretty } from '../state/format.js';
import { checkArgs, fieldsOf, sendToSession, toolsFrom, withArgument, type SendOutcome, type ToolInfo } from '../state/tool-schema.js';
import { JsonEditor, parseJson } from './JsonEditor.js';
import { JsonView } from './JsonView.js';

export interface SendPanelProps {
  store: TimelineStore;
  version: number;
  sessionId: string;
  /** The message to start from (already without its id). */
  draft: unknown;
  onSelect(key: string): void;
}

/** The tools the session's last `tools/list` answer listed ([] when it has none yet). */
export function sessionTools(store: TimelineStore, sessionId: string): ToolInfo[] {
  const answer = store.latestAnswer(sessionId, 'tools/list');
  return toolsFrom((answer?.jsonrpc as { result?: unknown } | undefined)?.result);
}

function toolCallOf(value: unknown): { name?: string; args: unknown } | undefined {
  const m = value as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | undefined;
  if (!m || typeof m !== 'object' || m.method !== 'tools/call') return undefined;
  return { name: typeof m.params?.name === 'string' ? m.params.name : undefined, args: m.params?.arguments ?? {} };
}

export function SendPanel({ store, version, sessionId, draft, onSelect }: SendPanelProps) {
  const [text, setText] = useState(() => jsonPretty(draft));
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<SendOutcome | undefined>();

  const parsed = parseJson(text);
  const value = 'value' in parsed ? parsed.value : undefined;
  const rpcProblem = 'error' in parsed ? parsed.error : checkJsonRpc(value);
  const call = rpcProblem ? undefined : toolCallOf(value);
  const tool = call?.name !== undefined ? sessionTools(store, sessionId).find((t) => t.name === call.name) : undefined;
  const schemaProblems = tool && call ? checkArgs({ type: 'object', ...tool.inputSchema }, call.args) : [];

  const send = async () => {
    setBusy(true);
    setOutcome(await sendToSession(sessionId, value));
    setBusy(false);
  };

  const insert = (name: string) => {
    const next = withArgument(value, name, tool?.inputSchema?.properties?.[name]);
    if (next) setText(jsonPretty(next));
  };

  return (
    <div className="send-panel" data-testid="send-panel">
      <p className="muted send-intro">
        Sent into session <b className="mono">{sessionId}</b> by mcpscope, as a new request with its own id; the answer comes back here and
        the exchange joins the timeline, marked “sent by mcpscope”.
      </p>
      <JsonEditor
        label="Message to send"
        testId="send-editor"
        value={text}
        onChange={setText}
        problem={rpcProblem}
        rows={Math.min(18, Math.max(6, text.split('\n').length + 1))}
      />
      {call && tool ? <ArgumentHelp tool={tool} args={call.args} onInsert={insert} /> : null}
      {call && call.name !== undefined && !tool ? (
        <p className="muted">No tools/list answer in this session describes “{call.name}”: its arguments are not checked here.</p>
      ) : null}
      {schemaProblems.length > 0 ? (
        <ul className="send-problems" data-testid="send-schema-problems">
          {schemaProblems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      <div className="send-actions">
        <button
          type="button"
          className="btn btn-primary"
          data-testid="send-submit"
          disabled={busy || rpcProblem !== undefined || schemaProblems.length > 0}
          onClick={() => void send()}
        >
          {busy ? 'Sending…' : 'Send'}
        </button>
        {schemaProblems.length > 0 && !rpcProblem ? (
          <button
            type="button"
            className="btn btn-danger"
            data-testid="send-anyway"
            disabled={busy}
            onClick={() => void send()}
            title="Send it as it is: to see what the server does with arguments its schema refuses"
          >
            Send anyway
          </button>
        ) : null}
        <button type="button" className="btn" disabled={busy} onClick={() => setText(jsonPretty(draft))}>
          Reset
        </button>
      </div>
      {outcome ? <SendResult store={store} version={version} outcome={outcome} onSelect={onSelect} /> : null}
    </div>
  );
}

function ArgumentHelp({ tool, args, onInsert }: { tool: ToolInfo; args: unknown; onInsert(name: string): void }) {
  const fields = fieldsOf(tool.inputSchema);
  const present = args && typeof args === 'object' ? (args as Record<string, unknown>) : {};
  return (
    <section className="arg-help" data-testid="arg-help">
      <div className="arg-help-head">
        Arguments of <b className="mono">{tool.name}</b>
        {tool.description ? <span className="muted"> — {tool.description}</span> : null}
      </div>
      {fields.length === 0 ? <p className="muted">It takes no arguments.</p> : null}
      <ul className="arg-list">
        {fields.map((f) => (
          <li key={f.name} className="arg-item" data-testid="arg-item" data-arg={f.name}>
            <button
              type="button"
              className="btn btn-sm"
              disabled={f.name in present}
              onClick={() => onInsert(f.name)}
              title={f.name in present ? 'Already in the arguments' : 'Insert this argument'}
            >
              +
            </button>
            <span className="mono arg-name">
              {f.name}
              {f.required ? (
                <span className="req" title="required">
                  *
                </span>
              ) : null}
            </span>
            <span className="arg-type mono">{f.options ? f.options.map((o) => JSON.stringify(o)).join(' | ') : f.typeText}</span>
            {f.description ? <span className="muted arg-desc">{f.description}</span> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The answer to something mcpscope sent: the response, or why there is none; a link to its exchange once the timeline has it. */
export function SendResult({
  store,
  version,
  outcome,
  onSelect,
}: {
  store: TimelineStore;
  version: number;
  outcome: SendOutcome;
  onSelect(key: string): void;
}) {
  void version;
  if (!outcome.ok) {
    return (
      <div className="send-result err" data-testid="send-result" data-ok="false">
        <b>Not sent:</b> {outcome.error}
      </div>
    );
  }
  const first = outcome.exchangeId !== undefined ? store.messagesOfExchange(outcome.exchangeId)[0] : undefined;
  const row = first ? store.rowOfMessage(first.seq) : undefined;
  const response = outcome.response as { result?: { content?: unknown; structuredContent?: unknown; isError?: boolean }; error?: unknown };
  const result = response?.result;
  const texts = Array.isArray(result?.content)
    ? (result.content as { type?: string; text?: unknown }[]).filter((c) => c?.type === 'text' && typeof c.text === 'string')
    : [];
  return (
    <div
      className={`send-result${result?.isError || response?.error ? ' err' : ''}`}
      data-testid="send-result"
      data-ok={response?.error || result?.isError ? 'false' : 'true'}
    >
      <div className="send-result-head">
        {outcome.accepted ? 'Sent (a notification: no answer expected).' : response?.error ? 'Answered with an error' : 'Answered'}
        {result?.isError ? <span className="tag-err"> isError: the tool reported a failure</span> : null}
        <span className="spacer" />
        {row ? (
          <button type="button" className="btn btn-sm" data-testid="send-open-row" onClick={() => onSelect(row.key)}>
            Show in timeline →
          </button>
        ) : outcome.exchangeId ? (
          <span className="muted">exchange {outcome.exchangeId}</span>
        ) : null}
      </div>
      {texts.map((c, i) => (
        <pre key={i} className="send-text" data-testid="send-result-text">
          {c.text as string}
        </pre>
      ))}
      {result?.structuredContent !== undefined ? <JsonView value={result.structuredContent} label="structuredContent" /> : null}
      {outcome.response !== undefined ? <JsonView value={outcome.response} label="Response" openDepth={texts.length > 0 ? 0 : 2} /> : null}
    </div>
  );
}
