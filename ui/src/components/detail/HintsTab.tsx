/**
 * The Hints tab: what mcpscope noticed about this row and its exchanges.
 */
import type { ReactNode } from 'react';
import type { TimelineStore } from '../../state/store.js';
import type { ExchangeInfo, Row } from '../../state/types.js';
import type { Hint } from '../../../../proxy/core/model/events.js';
import { Vis } from '../VisibleText.js';
import { rowMessages } from '../row-info.js';
import { Seq, ExchangeLabel, HintList } from './shared.js';

export function HintsTab({ store, row, exchanges }: { store: TimelineStore; row: Row; exchanges: ExchangeInfo[] }) {
  const sections: ReactNode[] = [];
  if (row.type === 'problem') {
    sections.push(
      <div className="panel" key="problem">
        <div className="panel-head">
          <span className="panel-title">Problem</span>
        </div>
        <HintList hints={[{ level: row.event.level, code: row.event.code, text: row.event.text }]} />
      </div>,
    );
  }
  if (row.type === 'turn' && row.turn.hints.length > 0) {
    sections.push(
      <div className="panel" key="turn">
        <div className="panel-head">
          <span className="panel-title">Model turn {row.turn.id}</span>
        </div>
        <HintList hints={row.turn.hints} />
      </div>,
    );
  }
  for (const m of rowMessages(row)) {
    if (m.hints.length === 0) continue;
    sections.push(
      <div className="panel" key={`m${m.seq}`}>
        <div className="panel-head">
          <span className="panel-title">
            {m.kind}{' '}
            <span className="muted">
              <Vis text={m.method} />
            </span>
          </span>
          <span className="muted">
            <Seq seq={m.seq} />
          </span>
        </div>
        <HintList hints={m.hints} />
      </div>,
    );
  }
  for (const x of exchanges) {
    const problems = store.problemsOf(x.id);
    if (x.hints.length === 0 && problems.length === 0) continue;
    sections.push(
      <div className="panel" key={`x${x.id}`}>
        <div className="panel-head">
          <span className="panel-title">
            HTTP <Vis text={x.method} /> <Vis text={x.url} />
          </span>
          <span className="muted">
            <ExchangeLabel id={x.id} />
          </span>
        </div>
        <HintList hints={[...problems.map((p) => ({ level: p.level, code: p.code, text: p.text }) as Hint), ...x.hints]} />
      </div>,
    );
  }
  if (sections.length === 0) return <div className="placeholder">No hints for this row.</div>;
  return <div className="hints-tab">{sections}</div>;
}
