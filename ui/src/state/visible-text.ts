/**
 * Invisible characters made visible: the scanner lives in proxy/core/model/visible-text.ts, shared with
 * `mcpscope mcp` (proxy/app/agent/agent-frame.ts), which escapes the same characters in what it hands
 * an agent. The UI's components import it from here.
 */
export * from '../../../proxy/core/model/visible-text.js';
