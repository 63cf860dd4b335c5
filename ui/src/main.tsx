/**
 * Entry point of the mcpscope UI: one timeline store, the live feed, the app shell.
 */
import './base.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { TimelineStore } from './state/store.js';
import { App } from './App.js';
import { stripTokenFromUrl } from './url-state.js';

// The first load carried ?token=…; the server answered with an HttpOnly cookie, so the token
// is not needed in the address bar (nor in shared links) any more.
stripTokenFromUrl();

const store = new TimelineStore();
// Hooks for end-to-end tests and bench/ui-timeline.ts (same-origin code only; the page needs the token).
const hooks = window as unknown as { __mcpscope?: { store: TimelineStore }; __mcpscopeStats?: () => TimelineStore['stats'] };
hooks.__mcpscope = { store };
hooks.__mcpscopeStats = () => store.stats;

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App store={store} connect />
  </StrictMode>,
);
