/**
 * What a browser gets when it opens the UI without its token (a bookmark, a URL copied without
 * `?token=…`, a UI port typed by hand): a small HTML page saying where the token is and taking it
 * in a form, instead of the API's JSON 401. Only for a page load — a GET that accepts text/html
 * and is not under /api/ — so scripts and the UI's own fetches still get JSON.
 *
 * The page names the real places: the terminal mcpscope printed the URL in, and the discovery file
 * in the real home directory (`$MCPSCOPE_HOME` when set). It has no script; its policy allows only
 * its own inline style and a form to this same origin (submitting `?token=` sets the cookie).
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Whether a refused request is a browser loading a page (it gets the HTML page, still with 401). */
export function wantsTokenPage(method: string | undefined, url: string | undefined, headers: IncomingHttpHeaders): boolean {
  if (method !== 'GET') return false;
  const path = (url ?? '/').split('?')[0];
  if (path.startsWith('/api/') || path === '/api' || path === '/ws' || path === '/ingest') return false;
  const accept = headers.accept;
  return typeof accept === 'string' && /\btext\/html\b/i.test(accept);
}

/** The page's own Content-Security-Policy: no script, its inline style, a form back to this origin. */
export const TOKEN_PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface TokenPageFacts {
  /** The discovery file that holds the token while this UI runs, if this mcpscope writes one. */
  discoveryFile?: string;
  /** This UI's port (for the commands shown). */
  port: number;
  /** The token given was wrong (not absent). */
  wrongToken: boolean;
}

export function tokenPage(f: TokenPageFacts): string {
  const file = f.discoveryFile ? escapeHtml(f.discoveryFile) : undefined;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcpscope — token needed</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1d2330;background:#f7f8fa}
h1{font-size:1.3rem}code{background:#e8ebf0;padding:.1rem .3rem;border-radius:3px;font-size:.9em}
form{margin:1.5rem 0;display:flex;gap:.5rem}input{flex:1;padding:.4rem;font:inherit}button{padding:.4rem .9rem;font:inherit}
.note{color:#5a6275;font-size:.9em}
</style></head>
<body>
<h1>This mcpscope UI needs its token</h1>
<p>${f.wrongToken ? 'The token this page was opened with is not this UI’s (mcpscope makes a new one each time it starts). ' : ''}The UI shows your MCP traffic, so it opens only with the token of the mcpscope serving it.</p>
<p>Where to find it:</p>
<ul>
<li>the terminal where mcpscope started printed the whole URL, ending in <code>?token=…</code>: open that one;</li>
${file ? `<li>while it runs, the token is the <code>"token"</code> field of <code>${file}</code> (readable by you only);</li>\n` : ''}<li>a token you chose yourself: <code>--token</code> or <code>$MCPSCOPE_TOKEN</code> where mcpscope was started.</li>
</ul>
<form method="get" action="/"><input name="token" autocomplete="off" placeholder="paste the token" aria-label="token"><button type="submit">Open the UI</button></form>
<p class="note">Scripts send it as <code>Authorization: Bearer &lt;token&gt;</code> (docs/event-schema.md, API routes). UI port ${f.port}.</p>
</body></html>
`;
}
