/**
 * The Paused panel: every message held at a breakpoint, with the time left before it
 * resumes by itself, an editor prefilled with the message as it came (GET api/paused: not the
 * redacted preview the feed carries), and what to do with it — resume, send edited, drop, or for
 * a request answer it in the other side's place. The list is reloaded whenever the feed's
 * `paused` events change what is held. The breakpoint rules are below it (BreakpointsPanel).
 */
import './PausedPanel.css';
import { useEffect, useState } from 'react';
import type { TimelineStore } from '../state/store.js';
import { actOnPaused, countdown, loadPaused, requestIdOf, respondTemplate, type PausedMessage } from '../state/breakpoints.js';
import { checkAnswer, checkJsonRpc } from '../../../proxy/core/rules/action-checks.js';
import type { PausedAction } from '../../../proxy/core/rules/breakpoint-types.js';
import { jsonPretty } from '../state/format.js';
import { JsonEditor, jsonProblem, parseJson } from './JsonEditor.js';
import { BreakpointsPanel } from './BreakpointsPanel.js';
import { Vis } from './VisibleText.js';

export interface PausedPanelProps {
  store: TimelineStore;
  version: number;
  /** The session the timeline shows ('' = all): the default of a new rule. */
  session: string;
}

export function PausedPanel({ store, version, session }: PausedPanelProps) {
  const [list, setList] = useState<PausedMessage[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [now, setNow] = useState(() => Date.now());
  // What the feed says is held: a change reloads the list (the API has the messages in full).
  const heldKey = store
    .held()
    .map((e) => e.pausedId)
    .join(',');
  void version;

  useEffect(() => {
    let current = true;
    loadPaused()
      .then((l) => {
        if (!current) return;
        setList(l);
        setError(undefined);
      })
      .catch((err: Error) => {
        if (current) setError(`The held messages could not be loaded: ${err.message}`);
      });
    return () => {
      current = false;
    };
  }, [heldKey]);

  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);

  const done = (id: string) => setList((l) => l?.filter((p) => p.id !== id));

  return (
    <>
      <section className="paused-section" data-testid="paused-list">
        <h3 className="paused-h">Held messages{list && list.length > 0 ? <span className="paused-count">{list.length}</span> : null}</h3>
        {error ? <p className="err-text">{error}</p> : null}
        {list === undefined && !error ? <p className="muted">Loading…</p> : null}
        {list?.length === 0 ? (
          <p className="muted" data-testid="paused-empty">
            Nothing is held. Add a breakpoint below, or use “Break on this” on a message: the next matching message waits here.
          </p>
        ) : null}
        {list?.map((p) => (
          <HeldCard key={p.id} held={p} now={now} onDone={done} />
        ))}
      </section>
      <BreakpointsPanel session={session} />
    </>
  );
}

type Mode = 'edit' | 'respond';

function HeldCard({ held, now, onDone }: { held: PausedMessage; now: number; onDone(id: string): void }) {
  const original = jsonPretty(held.message);
  const [mode, setMode] = useState<Mode>('edit');
  const [text, setText] = useState(original);
  const [answer, setAnswer] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const isRequest = held.kind === 'request';
  const requestId = requestIdOf(held.message);

  const editProblem = jsonProblem(text, checkJsonRpc);
  const changed = text.trim() !== original.trim();
  const answerProblem = jsonProblem(answer, (v) => {
    const r = checkAnswer(v, requestId);
    return 'error' in r ? r.error : undefined;
  });

  const act = async (action: PausedAction) => {
    setBusy(true);
    setError(undefined);
    try {
      await actOnPaused(held.id, action);
      onDone(held.id);
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };
  const parsed = (t: string) => {
    const p = parseJson(t);
    return 'value' in p ? p.value : undefined;
  };

  const label = [held.method ?? held.kind, held.name].filter(Boolean).join(' · ');
  const left = countdown(held.expiresAt, now);
  return (
    <article className="held-card" data-testid="held-card" data-paused-id={held.id}>
      <header className="held-head">
        <span className={`held-dir dir-${held.dir}`} title={held.dir === 'c2s' ? 'client → server' : 'server → client'}>
          {held.dir === 'c2s' ? '→' : '←'}
        </span>
        <span className="held-label mono">
          <Vis text={label} />
        </span>
        <span className="held-kind">{held.kind}</span>
        {held.sessionId ? (
          <span className="held-session mono" title="session">
            {held.sessionId}
          </span>
        ) : null}
        <span className="spacer" />
        <span
          className="held-timer mono"
          data-testid="held-timer"
          title="When this reaches 0:00 the message goes on unchanged (mcpscope's --hold-timeout)"
        >
          {left === 'resuming…' ? left : `resumes in ${left}`}
        </span>
      </header>
      {mode === 'edit' ? (
        <JsonEditor
          label="Held message"
          testId="held-editor"
          value={text}
          onChange={setText}
          problem={editProblem}
          note={changed && !editProblem ? 'Edited: “Send edited” puts this on the wire instead of the original.' : undefined}
          rows={Math.min(16, Math.max(5, original.split('\n').length + 1))}
        />
      ) : (
        <JsonEditor
          label="Answer"
          testId="held-answer"
          value={answer}
          onChange={setAnswer}
          problem={answerProblem}
          note="This answer goes back to the requester; the request never reaches the other side."
          rows={10}
        />
      )}
      {error ? (
        <p className="err-text" data-testid="held-error">
          {error}
        </p>
      ) : null}
      <div className="held-actions">
        {mode === 'edit' ? (
          <>
            <button
              type="button"
              className="btn btn-primary"
              data-testid="held-resume"
              disabled={busy}
              onClick={() => void act({ action: 'resume' })}
              title="Let the original message go on, unchanged"
            >
              ▶ Resume
            </button>
            <button
              type="button"
              className="btn"
              data-testid="held-send-edited"
              disabled={busy || !changed || editProblem !== undefined}
              onClick={() => void act({ action: 'resume', message: parsed(text) })}
              title={!changed ? 'Edit the message first' : (editProblem ?? 'Send the edited message instead of the original')}
            >
              Send edited
            </button>
            {changed ? (
              <button type="button" className="btn" onClick={() => setText(original)} title="Back to the message as it came">
                Undo edits
              </button>
            ) : null}
            <span className="spacer" />
            {isRequest ? (
              <button
                type="button"
                className="btn"
                data-testid="held-respond"
                disabled={busy}
                onClick={() => {
                  setAnswer(jsonPretty(respondTemplate(held.method, requestId)));
                  setMode('respond');
                }}
                title="Answer this request yourself: it never reaches the other side"
              >
                Respond…
              </button>
            ) : null}
            <button
              type="button"
              className="btn btn-danger"
              data-testid="held-drop"
              disabled={busy}
              onClick={() => void act({ action: 'drop' })}
              title="The message never arrives"
            >
              Drop
            </button>
          </>
        ) : (
          <>
            <button
              type="button"
              className="btn btn-primary"
              data-testid="held-send-answer"
              disabled={busy || answerProblem !== undefined}
              onClick={() => void act({ action: 'respond', message: parsed(answer) })}
            >
              Send answer
            </button>
            <button type="button" className="btn" onClick={() => setMode('edit')}>
              Back to the message
            </button>
          </>
        )}
      </div>
    </article>
  );
}
