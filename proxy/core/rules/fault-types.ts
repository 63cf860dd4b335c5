/**
 * Fault rule definitions: plain serializable data shared by the proxy, the API and the UI
 * (no Node APIs here, so the browser build can import the types).
 */

export type FaultAction =
  | { type: 'delay'; ms: number }
  | { type: 'status'; status: 500 | 502 | 503 | 404; body?: string }
  | { type: 'drop-stream'; afterEvents: number }
  | { type: 'expire-session' };

export interface FaultMatch {
  /** JSON-RPC method of the request (e.g. `tools/call`); needs the POST body. */
  method?: string;
  /** Tool name of a `tools/call` (params.name); needs the POST body. */
  tool?: string;
  /** Request path, exact (no query), e.g. `/mcp`. */
  path?: string;
}

export interface FaultRule {
  id: string;
  match: FaultMatch;
  action: FaultAction;
  /** Remove the rule once it has been applied. */
  once?: boolean;
}
