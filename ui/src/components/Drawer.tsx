/**
 * A panel that slides over the right side of the page, under the header: where the UI acts on
 * the traffic (held messages and breakpoints, edit and send, the tool form). Esc or × closes it.
 */
import './Drawer.css';
import { useEffect, type ReactNode } from 'react';

export interface DrawerProps {
  title: ReactNode;
  testId: string;
  onClose(): void;
  children: ReactNode;
}

export function Drawer({ title, testId, onClose, children }: DrawerProps) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onClose();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onClose]);
  return (
    <aside className="drawer" role="dialog" aria-label={typeof title === 'string' ? title : undefined} data-testid={testId}>
      <header className="drawer-head">
        <h2 className="drawer-title">{title}</h2>
        <button type="button" className="btn btn-sm btn-icon" onClick={onClose} title="Close (Esc)" aria-label="Close">
          ×
        </button>
      </header>
      <div className="drawer-body">{children}</div>
    </aside>
  );
}
