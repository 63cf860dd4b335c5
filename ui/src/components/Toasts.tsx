/**
 * Notices in the bottom-right corner: what an import did, or why it failed, in plain words.
 * Successes fade after a while (not while hovered); errors stay until dismissed.
 */
import './Toasts.css';
import { useEffect, useRef } from 'react';

export interface Notice {
  id: number;
  kind: 'ok' | 'warn' | 'error' | 'info';
  title: string;
  text?: string;
  /** Extra lines (warnings from the server, …). */
  details?: string[];
  /** Shows a spinner (work in progress). */
  busy?: boolean;
  /** Dismissed by itself after this long (ms); never when undefined. */
  timeoutMs?: number;
}

export interface ToastsProps {
  notices: readonly Notice[];
  onDismiss(id: number): void;
}

export function Toasts({ notices, onDismiss }: ToastsProps) {
  if (notices.length === 0) return null;
  return (
    <div className="toasts" role="region" aria-label="Notices">
      {notices.map((n) => (
        <Toast key={n.id} notice={n} onDismiss={onDismiss} />
      ))}
    </div>
  );
}

function Toast({ notice, onDismiss }: { notice: Notice; onDismiss(id: number): void }) {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const arm = () => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = notice.timeoutMs !== undefined ? setTimeout(() => onDismiss(notice.id), notice.timeoutMs) : undefined;
  };
  const disarm = () => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = undefined;
  };
  useEffect(() => {
    arm();
    return disarm;
    // Re-armed when the notice is replaced (same id, new content).
  }, [notice]);
  const icon = notice.busy ? (
    <span className="spinner" aria-hidden="true" />
  ) : (
    <span className="toast-icon" aria-hidden="true">
      {notice.kind === 'ok' ? '✓' : notice.kind === 'info' ? 'i' : '!'}
    </span>
  );
  return (
    <div
      className={`toast toast-${notice.kind}`}
      role={notice.kind === 'error' ? 'alert' : 'status'}
      data-testid="toast"
      data-kind={notice.kind}
      onMouseEnter={disarm}
      onMouseLeave={arm}
    >
      {icon}
      <div className="toast-body">
        <div className="toast-title">{notice.title}</div>
        {notice.text ? <div className="toast-text">{notice.text}</div> : null}
        {notice.details && notice.details.length > 0 ? (
          <ul className="toast-details">
            {notice.details.map((d, i) => (
              <li key={i}>{d}</li>
            ))}
          </ul>
        ) : null}
      </div>
      <button type="button" className="toast-close" aria-label="Dismiss" title="Dismiss" onClick={() => onDismiss(notice.id)}>
        ×
      </button>
    </div>
  );
}
