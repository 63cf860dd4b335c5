/**
 * A capture holding JSON nested far deeper than mcpscope keeps (proxy/import's depth cut): the
 * nesting, and the session line such a capture starts with. Used by import-capture.test.ts
 * (readCapture) and open.test.ts (`mcpscope open`).
 */

/** How deep `deepObj` is nested. */
export const DEEP_LEVELS = 100_000;

/** `{"a":{"a":…1…}}`, DEEP_LEVELS levels. */
export const deepObj = `${'{"a":'.repeat(DEEP_LEVELS)}1${'}'.repeat(DEEP_LEVELS)}`;

/** The `session` event line of session `s1` that the capture's messages belong to. */
export const deepCaptureSessionLine = JSON.stringify({
  type: 'session',
  seq: 1,
  ts: 1,
  session: {
    id: 's1',
    transport: 'streamable-http',
    target: 'http://x/mcp',
    startedAt: 1,
    status: 'open',
    counts: { messages: 1, requests: 1, pending: 0, errors: 0, exchanges: 0 },
  },
});
