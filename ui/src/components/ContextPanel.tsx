/**
 * The Context view: what the tools cost the model's context. Per agent, from its latest
 * turn: per MCP server and tool, the tokens its definitions take in every request, as horizontal
 * bars, largest first, with their share of the request's real input (the API's usage). Token
 * counts of tools are estimates (the encoding is named); the input is the API's own count.
 */
import './ContextPanel.css';
import { useMemo, useState } from 'react';
import type { TimelineStore } from '../state/store.js';
import { agentLabel, formatShare, formatTokens, turnKey, type AgentContext, type ServerCost } from '../state/model-turns.js';
import { formatBytes, plural } from '../state/format.js';
import { Vis } from './VisibleText.js';

export interface ContextPanelProps {
  store: TimelineStore;
  version: number;
  /** '' = every agent; else the agents of that session (the model API's, or an MCP session their tools were joined to). */
  sessionId: string;
  onSelect(key: string): void;
}

export function ContextPanel({ store, version, sessionId, onSelect }: ContextPanelProps) {
  const agents = useMemo(() => store.modelTurns.contextByAgent(sessionId), [store, version, sessionId]);
  if (agents.length === 0) {
    return (
      <div className="context-none" data-testid="context-none">
        <p>
          No model traffic {sessionId ? 'in this session' : 'recorded yet'}: mcpscope shows what the tools cost the model once it sees the
          agent&apos;s calls to its model API. Run the agent through mcpscope:
        </p>
        <pre className="mono">mcpscope run -- claude -p &quot;…&quot;</pre>
        <p className="muted">
          The forward proxy then records both sides: the MCP traffic and the model API&apos;s (Anthropic, OpenAI, Gemini).
          docs/agent-view.md says how, per client.
        </p>
      </div>
    );
  }
  return (
    <div className="context-panel" data-testid="context-panel">
      {agents.map((a) => (
        <AgentCost key={a.agent} agent={a} onSelect={onSelect} />
      ))}
    </div>
  );
}

function AgentCost({ agent, onSelect }: { agent: AgentContext; onSelect(key: string): void }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set(agent.servers.slice(0, 3).map((s) => s.server)));
  const toggle = (server: string) =>
    setOpen((was) => {
      const next = new Set(was);
      if (next.has(server)) next.delete(server);
      else next.add(server);
      return next;
    });
  const share = agent.inputTokens ? agent.toolsTokens / agent.inputTokens : undefined;
  return (
    <section className="context-agent" data-testid="context-agent" data-agent={agent.agent}>
      <header className="context-agent-head">
        <div className="context-agent-title">
          <span className="mono">
            <Vis text={agentLabel(agent.agent)} />
          </span>
          {agent.model ? (
            <span className="muted">
              {' '}
              · <Vis text={agent.model} />
            </span>
          ) : null}
        </div>
        <button
          type="button"
          className="chip"
          data-testid="context-turn"
          onClick={() => onSelect(turnKey(agent.turn.id))}
          title="Select the turn these costs are from (the agent's latest)"
        >
          latest turn {agent.turn.id}
        </button>
      </header>
      <p className="context-summary" data-testid="context-summary">
        Tools: <b>≈ {formatTokens(agent.toolsTokens)} tokens</b> in every request
        {share !== undefined ? ` (${formatShare(share)} of input)` : ''} · real input{' '}
        <b data-testid="context-input">{agent.inputTokens !== undefined ? `${formatTokens(agent.inputTokens)} tokens` : 'not reported'}</b>{' '}
        <span className="muted">(from the API&apos;s usage)</span>
      </p>
      <p className="context-estimate muted" data-testid="context-encoding">
        ≈ tool tokens are an estimate: <span className="mono">{agent.encoding}</span>. Bars: largest first.
      </p>
      <ul className="context-bars" aria-label={`What the tools cost ${agent.agent}, per server`}>
        {agent.servers.map((s) => (
          <ServerBar key={s.server} server={s} max={agent.max} open={open.has(s.server)} onToggle={() => toggle(s.server)} />
        ))}
      </ul>
    </section>
  );
}

function pct(n: number, max: number): string {
  return `${max > 0 ? Math.max(0.5, (n / max) * 100) : 0}%`;
}

function ServerBar({ server: s, max, open, onToggle }: { server: ServerCost; max: number; open: boolean; onToggle(): void }) {
  const line = `${s.server}: ${plural(s.count, 'tool')}, ≈ ${formatTokens(s.tokens)} tokens in every request${
    s.share !== undefined ? `, ${formatShare(s.share)} of input` : ''
  }`;
  return (
    <li className="context-server" data-testid="context-server" data-server={s.server} data-tokens={s.tokens}>
      <button type="button" className="context-row server" onClick={onToggle} aria-expanded={open} title={line}>
        <span className="context-name">
          <span className="context-caret" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          <Vis text={s.server} />
          <span className="context-count muted"> · {plural(s.count, 'tool')}</span>
        </span>
        <span className="context-track">
          <span className="context-fill" style={{ width: pct(s.tokens, max) }} />
        </span>
        <span className="context-num mono">≈ {formatTokens(s.tokens)}</span>
        <span className="context-share mono" data-testid="context-share">
          {formatShare(s.share)}
        </span>
      </button>
      {open ? (
        <ul className="context-tools">
          {s.instructionsTokens ? (
            <li className="context-row tool" data-testid="context-instructions">
              <span className="context-name muted">instructions</span>
              <span className="context-track">
                <span className="context-fill instructions" style={{ width: pct(s.instructionsTokens, max) }} />
              </span>
              <span className="context-num mono">≈ {formatTokens(s.instructionsTokens)}</span>
              <span className="context-share" />
            </li>
          ) : null}
          {s.tools.map((t) => (
            <li
              key={t.name}
              className="context-row tool"
              data-testid="context-tool"
              data-tool={t.name}
              data-tokens={t.tokens}
              title={`${t.name}: description ≈ ${formatTokens(t.descriptionTokens)}, schema ≈ ${formatTokens(t.schemaTokens)} tokens; ${formatBytes(t.bytes)}`}
            >
              <span className="context-name mono">
                <Vis text={t.tool ?? t.name} />
              </span>
              <span className="context-track">
                <span className="context-fill tool" style={{ width: pct(t.tokens, max) }} />
              </span>
              <span className="context-num mono">≈ {formatTokens(t.tokens)}</span>
              <span className="context-share mono muted">{formatBytes(t.bytes)}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}
