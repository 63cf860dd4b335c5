/**
 * A model turn in the timeline: its model, the tools it chose (each a link to the MCP
 * `tools/call` that carried it out, when one did; first, so a narrow row keeps them), its tokens in
 * and out and its stop reason; and the badge on an MCP `tools/call` row that a model turn asked for
 * (a link back to the turn).
 */
import './TurnCell.css';
import type { KeyboardEvent as ReactKeyboardEvent, MouseEvent as ReactMouseEvent } from 'react';
import type { ModelCallLink } from '../../../proxy/core/model/events.js';
import type { TurnRow } from '../state/types.js';
import { formatTokens, turnKey, turnStatusText } from '../state/model-turns.js';
import { Vis } from './VisibleText.js';
import { escapeInvisible } from '../state/visible-text.js';

/** Clicks and Enter on a link inside a row select what it names, not the row. */
function linkHandlers(go: () => void) {
  return {
    onClick: (e: ReactMouseEvent) => {
      e.stopPropagation();
      go();
    },
    onDoubleClick: (e: ReactMouseEvent) => e.stopPropagation(),
    onKeyDown: (e: ReactKeyboardEvent) => {
      if (e.key === 'Enter' || e.key === ' ') e.stopPropagation();
    },
  };
}

export function TurnMethodCell({ row, onSelect }: { row: TurnRow; onSelect?(key: string): void }) {
  const t = row.turn;
  const usage = t.usage;
  return (
    <span className="c-method turn-cell" data-testid="turn-cell" data-turn={t.id}>
      <span className="tag tag-model" title={`A call of ${t.client} to its model API (${t.api}, ${t.endpoint})`}>
        MODEL
      </span>
      <span className="m-method turn-model" title={t.model ?? t.api}>
        <Vis text={t.model ?? t.api} />
      </span>
      {t.toolCalls.map((c) => {
        const label = c.tool ?? c.name;
        if (!c.mcpCall || !onSelect) {
          return (
            <span
              key={c.id}
              className="turn-tool unlinked"
              data-testid="turn-tool"
              data-call={c.id}
              title={`The model chose ${c.name}; no MCP tools/call carried it out (yet)`}
            >
              <Vis text={label} />
            </span>
          );
        }
        const to = `c${c.mcpCall.seq}`;
        return (
          <button
            key={c.id}
            type="button"
            className={`turn-tool${c.mcpFailed ? ' failed' : ''}`}
            data-testid="turn-tool"
            data-call={c.id}
            data-to={to}
            title={`The model chose ${c.name}: select the MCP tools/call #${c.mcpCall.seq} that carried it out`}
            {...linkHandlers(() => onSelect(to))}
          >
            <Vis text={label} /> → #{c.mcpCall.seq}
          </button>
        );
      })}
      {usage ? (
        <span
          className="turn-tokens mono"
          data-testid="turn-tokens"
          title="Tokens the model read for this request (input, cache read and write) and wrote, as the API reported them"
        >
          {formatTokens(usage.totalInputTokens)} in / {formatTokens(usage.outputTokens)} out
        </span>
      ) : null}
      {t.status === 'done' ? (
        t.stopReason ? (
          <span className="tag tag-stop" data-testid="turn-stop" title="Why the model stopped (its stop reason)">
            <Vis text={t.stopReason} />
          </span>
        ) : null
      ) : (
        <span className={`turn-state st-${t.status}`} data-testid="turn-state" title={escapeInvisible(turnStatusText(t))}>
          <Vis text={turnStatusText(t)} />
        </span>
      )}
    </span>
  );
}

/** On an MCP tools/call row: the model turn that asked for it. */
export function ModelCallBadge({ link, onSelect }: { link: ModelCallLink; onSelect?(key: string): void }) {
  const title = `A tool call model turn ${link.turn} chose (${link.name}): select the turn`;
  if (!onSelect) {
    return (
      <span className="tag tag-model-call" data-testid="row-model-call" data-turn={link.turn} title={escapeInvisible(title)}>
        ← {link.turn}
      </span>
    );
  }
  return (
    <button
      type="button"
      className="tag tag-model-call"
      data-testid="row-model-call"
      data-turn={link.turn}
      title={escapeInvisible(title)}
      {...linkHandlers(() => onSelect(turnKey(link.turn)))}
    >
      ← <Vis text={link.turn} />
    </button>
  );
}
