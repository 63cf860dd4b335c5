/**
 * Drag-and-drop of capture files anywhere on the page: `useFileDrop` watches the window while
 * files (not text or links) are dragged over it, and `DropOverlay` says what dropping will do.
 */
import './DropOverlay.css';
import { useEffect, useRef, useState } from 'react';

function carriesFiles(e: DragEvent): boolean {
  const types = e.dataTransfer?.types;
  if (!types) return false;
  for (let i = 0; i < types.length; i++) if (types[i] === 'Files') return true;
  return false;
}

/** Whether files are being dragged over the page; `onFiles` gets what is dropped. */
export function useFileDrop(onFiles: (files: File[]) => void, enabled = true): boolean {
  const [over, setOver] = useState(false);
  const depth = useRef(0);
  const onFilesRef = useRef(onFiles);
  onFilesRef.current = onFiles;

  useEffect(() => {
    if (!enabled) return;
    const reset = () => {
      depth.current = 0;
      setOver(false);
    };
    const onEnter = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      depth.current++;
      setOver(true);
    };
    const onOver = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      // Without this the browser would open the file itself instead of letting us have it.
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const onLeave = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      // Moving between elements enters the next one before leaving the last: the count only
      // reaches 0 when the drag leaves the window.
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) reset();
    };
    const onDrop = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      reset();
      const files = [...(e.dataTransfer?.files ?? [])];
      if (files.length > 0) onFilesRef.current(files);
    };
    window.addEventListener('dragenter', onEnter);
    window.addEventListener('dragover', onOver);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('drop', onDrop);
    window.addEventListener('dragend', reset);
    return () => {
      window.removeEventListener('dragenter', onEnter);
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('drop', onDrop);
      window.removeEventListener('dragend', reset);
    };
  }, [enabled]);
  return over;
}

export function DropOverlay() {
  return (
    <div className="drop-overlay" data-testid="drop-overlay" aria-hidden="true">
      <div className="drop-card">
        <svg width="34" height="34" viewBox="0 0 24 24" aria-hidden="true" className="drop-icon">
          <path
            d="M12 3v12m0 0-4.5-4.5M12 15l4.5-4.5"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.8"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
          <path
            d="M4 15v3.5A1.5 1.5 0 0 0 5.5 20h13a1.5 1.5 0 0 0 1.5-1.5V15"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.8"
            strokeLinecap="round"
          />
        </svg>
        <div className="drop-title">Drop a capture to open it</div>
        <div className="drop-text">
          A fixture (.json), an NDJSON event log (.ndjson) or a HAR file (.har). It is added as a new session next to the live ones.
        </div>
      </div>
    </div>
  );
}
