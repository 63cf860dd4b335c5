/**
 * Minimal live view (the full timeline UI is its own issue): connects to the feed and lists
 * sessions and their JSON-RPC messages as they arrive.
 */
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { FeedMessage, McpscopeEvent, MessageEvent, SessionInfo } from '../../proxy/model/events';

function useFeed(): { sessions: SessionInfo[]; messages: MessageEvent[]; status: string } {
  const [state, setState] = useState<{ sessions: Map<string, SessionInfo>; messages: MessageEvent[] }>({ sessions: new Map(), messages: [] });
  const [status, setStatus] = useState('connecting');
  useEffect(() => {
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${proto}://${location.host}/ws`);
    const apply = (events: McpscopeEvent[]) =>
      setState((prev) => {
        const sessions = new Map(prev.sessions);
        const messages = prev.messages.slice();
        for (const e of events) {
          if (e.type === 'session') sessions.set(e.session.id, e.session);
          else if (e.type === 'message') messages.push(e);
        }
        return { sessions, messages };
      });
    ws.onopen = () => setStatus('live');
    ws.onclose = () => setStatus('disconnected');
    ws.onmessage = (m) => {
      const msg = JSON.parse(String(m.data)) as FeedMessage;
      if (msg.type === 'snapshot' || msg.type === 'events') apply(msg.events);
      if (msg.type === 'cleared') setState({ sessions: new Map(), messages: [] });
    };
    return () => ws.close();
  }, []);
  return { sessions: [...state.sessions.values()], messages: state.messages, status };
}

function App() {
  const { sessions, messages, status } = useFeed();
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', padding: 16 }}>
      <h1 style={{ fontSize: 18 }}>
        mcpscope <small data-testid="status">{status}</small>
      </h1>
      <p>
        {sessions.length} sessions, {messages.length} messages
      </p>
      <table style={{ fontFamily: 'ui-monospace, monospace', fontSize: 12, borderCollapse: 'collapse' }}>
        <tbody>
          {messages.slice(-200).map((m) => (
            <tr key={m.seq} data-testid="message-row">
              <td>{m.seq}</td>
              <td>{m.sessionId}</td>
              <td>{m.dir === 'c2s' ? '→' : '←'}</td>
              <td>{m.kind}</td>
              <td>{m.method}</td>
              <td>{m.name}</td>
              <td>{m.latencyMs !== undefined ? `${m.latencyMs.toFixed(1)} ms` : ''}</td>
              <td>{m.hints.map((h) => h.text).join(' ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
