/**
 * The Model tab: a model turn as a transcript — the system prompt (collapsed), the
 * messages the request carried (from `messagesFrom` on: the earlier ones went in earlier turns),
 * the model's output (text, thinking, tool use with its arguments) — with the links both ways: a
 * tool use to the MCP `tools/call` that carried it out and its result, a tool result to the turn
 * that asked for it. Then the turn's timing, usage, the tools offered with their sizes, and its
 * hints. On a `tools/call` a model turn asked for, it shows that turn.
 */
import './ModelTab.css';
import { useState, type ReactNode } from 'react';
import type { TimelineStore } from '../../state/store.js';
import type { Row } from '../../state/types.js';
import type {
  McpRef,
  ModelCallLink,
  ModelToolCall,
  ModelToolResult,
  ModelTurnInfo,
  TranscriptEntry,
} from '../../../../proxy/core/model/events.js';
import { formatBytes, formatClock, formatMs, jsonPretty, plural } from '../../state/format.js';
import { agentLabel, entryPreview, formatShare, formatTokens, turnKey, turnStatusText } from '../../state/model-turns.js';
import { Vis } from '../VisibleText.js';
import { HintList } from './shared.js';

/** The turn a row shows in the Model tab: its own, or the one that asked for its tools/call. */
export function turnOfRow(store: TimelineStore, row: Row): { turn?: ModelTurnInfo; link?: ModelCallLink } {
  if (row.type === 'turn') return { turn: row.turn };
  if (row.type === 'call' && row.request.modelCall) {
    const link = row.request.modelCall;
    return { turn: store.modelTurns.turn(link.turn), link };
  }
  return {};
}

type Go = (key: string) => void;

export function ModelTab({ store, row, onSelect }: { store: TimelineStore; row: Row; onSelect: Go }) {
  const { turn, link } = turnOfRow(store, row);
  if (!turn) {
    return (
      <div className="placeholder" data-testid="model-none">
        {link
          ? `Model turn ${link.turn} asked for this call, but that turn is not in the store (evicted, or not recorded).`
          : 'No model turn.'}
      </div>
    );
  }
  const keyOf = (ref: McpRef | undefined) => (ref ? store.rowOfMessage(ref.seq)?.key : undefined);
  return (
    <div className="model-tab" data-testid="model-tab" data-turn={turn.id}>
      {link ? (
        <div className="note" data-testid="model-asked-by">
          This <span className="mono">tools/call</span> carried out <Vis text={link.name} /> (call{' '}
          <span className="mono">
            <Vis text={link.callId} />
          </span>
          ), which model turn {turn.id} chose.{' '}
          <LinkChip link="turn" onClick={() => onSelect(turnKey(turn.id))} title="Select the model turn">
            → turn {turn.id}
          </LinkChip>
        </div>
      ) : null}
      <Summary turn={turn} />
      <Timing turn={turn} />
      <Usage turn={turn} />
      {turn.hints.length > 0 ? (
        <section className="panel" data-testid="model-hints">
          <div className="panel-head">
            <span className="panel-title">Hints</span>
          </div>
          <HintList hints={turn.hints} />
        </section>
      ) : null}
      <Transcript turn={turn} keyOf={keyOf} onSelect={onSelect} />
      <ToolsOffered turn={turn} />
    </div>
  );
}

function LinkChip({ link, onClick, title, children }: { link: string; onClick(): void; title: string; children: ReactNode }) {
  return (
    <button type="button" className="chip" data-link={link} data-testid="model-link" onClick={onClick} title={title}>
      {children}
    </button>
  );
}

function Summary({ turn }: { turn: ModelTurnInfo }) {
  return (
    <section className="panel" data-testid="model-summary">
      <div className="panel-head">
        <span className="panel-title">
          Model turn {turn.id} · <Vis text={turn.model ?? '(model not named)'} />
        </span>
        <span className={`model-status st-${turn.status}`} data-testid="model-status" data-status={turn.status}>
          <Vis text={turnStatusText(turn)} />
        </span>
      </div>
      <dl className="kv model-kv">
        <dt>API</dt>
        <dd>
          <span className="mono">{turn.api}</span> · <Vis text={turn.endpoint} /> · {turn.stream ? 'streamed' : 'one JSON answer'}
        </dd>
        <dt>Agent</dt>
        <dd>
          {turn.client} ·{' '}
          <span className="mono">
            <Vis text={agentLabel(turn.agent)} />
          </span>
        </dd>
        {turn.responseModel !== undefined && turn.responseModel !== turn.model ? (
          <>
            <dt>Answered by</dt>
            <dd className="mono" data-testid="model-response-model">
              <Vis text={turn.responseModel} />
            </dd>
          </>
        ) : null}
        <dt>Request</dt>
        <dd>
          {plural(turn.messageCount, 'message')}, {plural(turn.tools.length, 'tool')} offered
          {turn.toolChoice ? (
            <>
              , tool choice <Vis text={turn.toolChoice} />
            </>
          ) : null}
          {turn.maxTokens !== undefined ? `, at most ${formatTokens(turn.maxTokens)} output tokens` : ''}
        </dd>
        {turn.error ? (
          <>
            <dt>Error</dt>
            <dd className="err-text">
              <Vis text={turn.error} multiline />
            </dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}

function Timing({ turn }: { turn: ModelTurnInfo }) {
  const after = (t: number | undefined) => (t !== undefined ? `+${formatMs(t - turn.startedAt)}` : '—');
  return (
    <section className="panel" data-testid="model-timing">
      <div className="panel-head">
        <span className="panel-title">Timing</span>
        {turn.firstTokenAt !== undefined ? (
          <span className="muted" data-testid="model-ttft">
            time to first token {formatMs(turn.firstTokenAt - turn.startedAt)}
          </span>
        ) : null}
      </div>
      <div className="model-timeline mono">
        <span title="The request was sent">sent {formatClock(turn.startedAt)}</span>
        <span aria-hidden="true">→</span>
        <span title="The first token of the response">first token {after(turn.firstTokenAt)}</span>
        <span aria-hidden="true">→</span>
        <span title="The response ended">{turn.status === 'pending' ? 'not done yet' : `done ${after(turn.endedAt)}`}</span>
      </div>
    </section>
  );
}

function Usage({ turn }: { turn: ModelTurnInfo }) {
  const u = turn.usage;
  if (!u) {
    return (
      <section className="panel" data-testid="model-usage">
        <div className="panel-head">
          <span className="panel-title">Usage</span>
        </div>
        <div className="placeholder">The API has not reported token counts{turn.status === 'pending' ? ' yet' : ''}.</div>
      </section>
    );
  }
  const items: [string, number | undefined, string][] = [
    ['input', u.inputTokens, 'Input tokens not read from or written to a cache'],
    ['cache read', u.cacheReadTokens, "Read from the provider's prompt cache"],
    ['cache write', u.cacheWriteTokens, 'Written to the prompt cache'],
    ['total input', u.totalInputTokens, 'Everything the model read for this request'],
    ['output', u.outputTokens, 'Tokens the model wrote'],
    ['reasoning', u.reasoningTokens, 'Reasoning (thinking) tokens, where the API counts them apart'],
  ];
  return (
    <section className="panel" data-testid="model-usage">
      <div className="panel-head">
        <span className="panel-title">Usage</span>
        <span className="muted">as the API reported it</span>
      </div>
      <dl className="model-usage">
        {items
          .filter(([, n]) => n !== undefined)
          .map(([label, n, title]) => (
            <div key={label} title={title} data-usage={label}>
              <dt>{label}</dt>
              <dd className="mono">{formatTokens(n)}</dd>
            </div>
          ))}
      </dl>
    </section>
  );
}

interface TranscriptProps {
  turn: ModelTurnInfo;
  keyOf(ref: McpRef | undefined): string | undefined;
  onSelect: Go;
}

function Transcript({ turn, keyOf, onSelect }: TranscriptProps) {
  const calls = new Map<string, ModelToolCall>(turn.toolCalls.map((c) => [c.id, c]));
  const results = new Map<string, ModelToolResult>(turn.toolResults.map((r) => [r.callId, r]));
  const earlier = Math.max(0, Math.min(turn.messagesFrom, turn.messageCount));
  return (
    <section className="panel" data-testid="model-transcript">
      <div className="panel-head">
        <span className="panel-title">Conversation</span>
        <span className="muted">what the model saw and wrote</span>
      </div>
      <div className="transcript">
        {turn.system ? (
          <details className="tx-system" data-testid="tx-system">
            <summary>
              <span className="tx-role">system</span> <span className="muted">{formatBytes(turn.system.bytes)}</span>
              {turn.system.truncated ? <span className="tx-cut-tag">cut</span> : null}
            </summary>
            <EntryText entry={turn.system} />
          </details>
        ) : null}
        {earlier > 0 ? (
          <div className="tx-earlier" data-testid="tx-earlier">
            {plural(earlier, 'earlier message')} (sent in earlier turns)
          </div>
        ) : null}
        {turn.messages.map((e, i) => (
          <Entry key={`m${i}`} entry={e} where="request" calls={calls} results={results} keyOf={keyOf} onSelect={onSelect} />
        ))}
        {turn.output.length > 0 ? <div className="tx-divider">response</div> : null}
        {turn.output.map((e, i) => (
          <Entry key={`o${i}`} entry={e} where="output" calls={calls} results={results} keyOf={keyOf} onSelect={onSelect} />
        ))}
        {turn.output.length === 0 ? (
          <div className="placeholder">
            {turn.status === 'pending' ? 'The response has not come yet.' : 'The response carried no content.'}
          </div>
        ) : null}
      </div>
    </section>
  );
}

const KIND_LABEL: Record<TranscriptEntry['kind'], string> = {
  text: 'text',
  thinking: 'thinking',
  'tool-use': 'tool use',
  'tool-result': 'tool result',
  image: 'image',
  document: 'document',
  other: 'other',
};

function Entry({
  entry,
  where,
  calls,
  results,
  keyOf,
  onSelect,
}: {
  entry: TranscriptEntry;
  where: 'request' | 'output';
  calls: Map<string, ModelToolCall>;
  results: Map<string, ModelToolResult>;
} & Omit<TranscriptProps, 'turn'>) {
  const links: ReactNode[] = [];
  if (entry.kind === 'tool-use' && entry.callId !== undefined) {
    const call = calls.get(entry.callId);
    const callKey = keyOf(call?.mcpCall);
    const resultKey = keyOf(call?.mcpResult);
    if (call && callKey)
      links.push(
        <LinkChip key="call" link="mcp-call" onClick={() => onSelect(callKey)} title="Select the MCP tools/call that carried it out">
          → MCP tools/call #{call.mcpCall!.seq}
        </LinkChip>,
      );
    if (call && resultKey && call.mcpResult)
      links.push(
        <LinkChip key="result" link="mcp-result" onClick={() => onSelect(resultKey)} title="Select the MCP call whose result this is">
          result #{call.mcpResult.seq}
          {call.mcpFailed ? ' (failed)' : ''}
        </LinkChip>,
      );
    if (call?.resultTurn)
      links.push(
        <LinkChip
          key="next"
          link="result-turn"
          onClick={() => onSelect(turnKey(call.resultTurn!))}
          title="Select the turn whose request carried the result back to the model"
        >
          result sent in turn {call.resultTurn}
        </LinkChip>,
      );
    if (where === 'output' && call && !call.mcpCall)
      links.push(
        <span key="none" className="tx-unlinked" data-testid="tx-unlinked">
          no MCP tools/call carried it out (yet)
        </span>,
      );
  }
  if (entry.kind === 'tool-result' && entry.callId !== undefined) {
    const result = results.get(entry.callId);
    if (result?.fromTurn)
      links.push(
        <LinkChip
          key="from"
          link="from-turn"
          onClick={() => onSelect(turnKey(result.fromTurn!))}
          title="Select the model turn whose response asked for this tool call"
        >
          ← asked for by turn {result.fromTurn}
        </LinkChip>,
      );
    const key = keyOf(result?.mcpResult);
    if (key && result?.mcpResult)
      links.push(
        <LinkChip key="mcp" link="mcp-result" onClick={() => onSelect(key)} title="Select the MCP call this result came from">
          MCP result #{result.mcpResult.seq}
        </LinkChip>,
      );
    if (result?.compared)
      links.push(
        <span
          key="cmp"
          className={`tx-compared ${result.compared}`}
          title={result.note}
          data-testid="tx-compared"
          data-compared={result.compared}
        >
          {result.compared === 'same' ? 'same as the server answered' : `changed by the client${result.note ? `: ${result.note}` : ''}`}
        </span>,
      );
  }
  return (
    <div
      className={`tx-entry role-${entry.role} kind-${entry.kind}${entry.isError ? ' is-error' : ''}`}
      data-testid="tx-entry"
      data-role={entry.role}
      data-kind={entry.kind}
      data-call={entry.callId}
    >
      <div className="tx-head">
        <span className="tx-role">{entry.role}</span>
        <span className="tx-kind">{KIND_LABEL[entry.kind] ?? entry.kind}</span>
        {entry.name ? (
          <span className="tx-name mono">
            <Vis text={entry.name} />
          </span>
        ) : null}
        {entry.callId ? (
          <span className="tx-callid mono muted">
            <Vis text={entry.callId} />
          </span>
        ) : null}
        {entry.isError ? <span className="tag lvl lvl-error">error</span> : null}
        <span className="tx-size muted">{formatBytes(entry.bytes)}</span>
      </div>
      {where === 'request' ? <FoldedText entry={entry} /> : <EntryText entry={entry} />}
      {links.length > 0 ? <div className="tx-links">{links}</div> : null}
    </div>
  );
}

/**
 * A request entry's text, its head only when it is long (a real agent's reminders and system texts
 * run to several KB): what the model answered stays in view; "show all" opens the rest.
 */
function FoldedText({ entry }: { entry: TranscriptEntry }) {
  const [open, setOpen] = useState(false);
  const head = entry.kind === 'tool-use' ? undefined : entryPreview(entry.text);
  if (head === undefined) return <EntryText entry={entry} />;
  return (
    <>
      {open ? (
        <EntryText entry={entry} />
      ) : (
        <pre className="tx-text folded" data-testid="tx-folded">
          <Vis text={head} multiline />
        </pre>
      )}
      <button type="button" className="tx-more" data-testid="tx-more" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'show less' : `show all ${formatBytes(entry.bytes)}`}
      </button>
    </>
  );
}

/** An entry's text; a tool use's arguments as indented JSON when they parse; a cut text says so. */
function EntryText({ entry }: { entry: TranscriptEntry }) {
  let text = entry.text;
  if (entry.kind === 'tool-use' && !entry.truncated) {
    try {
      text = jsonPretty(JSON.parse(entry.text));
    } catch {
      // Not JSON (broken argument deltas): shown as they came.
    }
  }
  return (
    <>
      {text !== '' ? (
        <pre className={`tx-text${entry.kind === 'tool-use' ? ' json' : ''}`}>
          <Vis text={text} multiline />
        </pre>
      ) : null}
      {entry.truncated ? (
        <div className="tx-cut" data-testid="tx-cut">
          Cut: the first {formatBytes(new TextEncoder().encode(entry.text).length)} of {formatBytes(entry.bytes)} are kept.
        </div>
      ) : null}
    </>
  );
}

function ToolsOffered({ turn }: { turn: ModelTurnInfo }) {
  const groups = new Map<string, ModelTurnInfo['tools']>();
  for (const t of turn.tools) {
    const server = t.server ?? '(built-in)';
    let list = groups.get(server);
    if (!list) groups.set(server, (list = []));
    list.push(t);
  }
  const costs = new Map((turn.context?.servers ?? []).map((s) => [s.server, s]));
  const tokens = (t: ModelTurnInfo['tools'][number]) => t.descriptionTokens + t.schemaTokens;
  const servers = [...groups.entries()].sort((a, b) => b[1].reduce((n, t) => n + tokens(t), 0) - a[1].reduce((n, t) => n + tokens(t), 0));
  return (
    <section className="panel" data-testid="model-tools">
      <div className="panel-head">
        <span className="panel-title">Tools offered</span>
        <span className="muted">
          {plural(turn.tools.length, 'tool')}
          {turn.context
            ? ` · ≈ ${formatTokens(turn.context.toolsTokens)} tokens, ${formatBytes(turn.context.toolsBytes)} · ${turn.context.encoding} estimate`
            : ''}
        </span>
      </div>
      {turn.tools.length === 0 ? <div className="placeholder">The request offered the model no tools.</div> : null}
      {servers.map(([server, tools]) => {
        const cost = costs.get(server);
        return (
          <div key={server} className="model-tools-server" data-testid="model-tools-server" data-server={server}>
            <div className="model-tools-head">
              <span className="mono">
                <Vis text={server} />
              </span>
              {cost ? (
                <span className="muted">
                  {plural(cost.tools, 'tool')} · ≈ {formatTokens(cost.tokens)} tokens
                  {cost.instructionsTokens ? ` + ${formatTokens(cost.instructionsTokens)} of instructions` : ''}
                  {cost.share !== undefined ? ` · ${formatShare(cost.share)} of input` : ''}
                </span>
              ) : null}
            </div>
            <table className="model-tools-table">
              <thead>
                <tr>
                  <th>tool</th>
                  <th title="Estimated tokens of its description and its schema">≈ tokens</th>
                  <th title="Bytes of its description and its schema as sent">bytes</th>
                </tr>
              </thead>
              <tbody>
                {[...tools]
                  .sort((a, b) => tokens(b) - tokens(a))
                  .map((t) => (
                    <tr key={t.name} data-testid="model-tool" data-tool={t.name}>
                      <td className="mono">
                        <Vis text={t.name} />
                      </td>
                      <td className="mono num" title={`description ${t.descriptionTokens}, schema ${t.schemaTokens}`}>
                        {formatTokens(tokens(t))}
                      </td>
                      <td className="mono num">{formatBytes(t.descriptionBytes + t.schemaBytes)}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        );
      })}
    </section>
  );
}
