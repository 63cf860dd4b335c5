/**
 * Invisible characters made visible: the scanner lives in proxy/model/visible-text.ts, shared with
 * `mcpscope mcp` (proxy/agent/agent-frame.ts), which escapes the same characters in what it hands
 * an agent. The UI's components import it from here.
 */
export * from '../../../proxy/model/visible-text.js';
