/**
 * How a wrapper's breakpoints and sends (stdio-holds.ts) meet the UI it records into: over the
 * `/ingest` socket (ingest-control.ts; serve/ingest.ts is the other end), or directly when the
 * wrapper serves its own UI (the core's rule set, held-message registry and send links).
 */
import type WebSocket from 'ws';
import type { McpscopeCore } from '../mcpscope.js';
import type { PausedHolder } from '../breakpoints/paused-registry.js';
import type { StdioHolds } from './stdio-holds.js';
import { parseControlDown, type ControlUp } from './ingest-control.js';

/** Links `holds` to a UI over its ingest socket; returns the unlink function (the socket closed). */
export function linkHoldsToSocket(holds: StdioHolds, ws: WebSocket): () => void {
  const up = (m: ControlUp) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
  };
  const onMessage = (data: WebSocket.RawData, isBinary: boolean) => {
    if (isBinary) return;
    const text = Buffer.isBuffer(data)
      ? data.toString('utf8')
      : Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data).toString('utf8');
    const m = parseControlDown(text);
    if (!m) return;
    if (m.type === 'breakpoints') {
      holds.setRules(m.entries, m.holdMs);
      if (m.seq !== undefined) up({ type: 'rules', seq: m.seq });
    } else if (m.type === 'act') holds.act(m.id, m.action);
    else void holds.send(m.message, m.timeoutMs).then((outcome) => up({ type: 'sent', ref: m.ref, ...outcome }));
  };
  ws.on('message', onMessage);
  holds.uplink = {
    held: (report) => up({ type: 'held', report }),
    released: (id, outcome) => up({ type: 'released', id, outcome }),
    taken: (id, serial) => up({ type: 'taken', id, serial }),
  };
  // A UI linked anew (after a restart) learns what is held now.
  for (const report of holds.held()) up({ type: 'held', report });
  return () => {
    ws.off('message', onMessage);
    holds.unlinked();
  };
}

/** Links `holds` (process `xid`) to the wrapper's own mcpscope; returns the unlink function. */
export function linkHoldsToCore(holds: StdioHolds, core: McpscopeCore, xid: string): () => void {
  // Its held lines are named as they are (no prefix: the recorder knows the process as `xid`).
  const holder: PausedHolder = { act: (id, action) => void holds.act(id, action) };
  const rules = () => holds.setRules(core.breakpoints.entries());
  const stopRules = core.breakpoints.onChange(rules);
  rules();
  holds.uplink = {
    held: (report) => core.paused.add('', holder, report),
    released: (id, outcome) => core.paused.released('', id, outcome),
    taken: (id, serial) => core.breakpoints.removeTaken(id, serial),
  };
  for (const report of holds.held()) core.paused.add('', holder, report);
  const unregister = core.stdioLinks.register(xid, (message, timeoutMs) => holds.send(message, timeoutMs));
  return () => {
    stopRules();
    unregister();
    core.paused.forget(holder);
    holds.unlinked();
  };
}
