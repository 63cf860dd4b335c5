/**
 * How `mcpscope mcp` talks to a running mcpscope: its UI port's JSON API, with the UI's token.
 *
 * The token is `--token`, else `$MCPSCOPE_TOKEN`, else the one the UI on that port wrote into its
 * discovery file (`$MCPSCOPE_HOME/ui-<port>.json`, proxy/app/serve/discovery.ts: what stdio wrappers
 * read). It is looked up again on every call, so an mcpscope started (or restarted, with a new
 * token) after the agent's MCP server still works. Loopback only: the API is never reached
 * anywhere but 127.0.0.1. Every failure becomes a UiApiError that says what to do, in plain words.
 */
import { discoveryPath, readDiscovery } from '../serve/discovery.js';
import { UiApiError } from '../../core/model/errors.js';

/** Per request: a resume at a breakpoint waits for its holder. */
const REQUEST_TIMEOUT_MS = 15_000;

export interface UiClientOptions {
  /** The UI port (default 6480). */
  uiPort: number;
  /** --token; else $MCPSCOPE_TOKEN, else the discovery file. */
  token?: string;
  env?: NodeJS.ProcessEnv;
}

export class UiClient {
  readonly uiPort: number;
  private readonly explicitToken?: string;
  private readonly env: NodeJS.ProcessEnv;

  constructor(options: UiClientOptions) {
    this.uiPort = options.uiPort;
    this.env = options.env ?? process.env;
    this.explicitToken = options.token || this.env.MCPSCOPE_TOKEN || undefined;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.uiPort}`;
  }

  /** The token to present now, and where it came from; undefined when there is none to find. */
  token(): { token: string; from: 'option' | 'discovery' } | undefined {
    if (this.explicitToken) return { token: this.explicitToken, from: 'option' };
    const d = readDiscovery(this.uiPort, this.env);
    return d ? { token: d.token, from: 'discovery' } : undefined;
  }

  /** Every token this client may hold right now (to redact them from anything it hands on). */
  secrets(): string[] {
    const t = this.token();
    return t ? [t.token] : [];
  }

  private notRunning(): UiApiError {
    return new UiApiError(
      `No mcpscope is running on 127.0.0.1:${this.uiPort} — start one with \`mcpscope --target <url>\` (or \`npm start\` for the demo), or pass --ui-port if it serves its UI on another port.`,
    );
  }

  async json<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
    const res = await this.request(path, init);
    const text = await res.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new UiApiError(`mcpscope on 127.0.0.1:${this.uiPort} answered ${path} with something that is not JSON.`, res.status);
    }
  }

  async text(path: string): Promise<{ body: string }> {
    const res = await this.request(path, {});
    return { body: await res.text() };
  }

  private async request(path: string, init: { method?: string; body?: unknown }): Promise<Response> {
    const t = this.token();
    if (!t) {
      // No token: find out whether anything listens, to say the right thing.
      const listening = await fetch(`${this.origin}/api/info`, { signal: AbortSignal.timeout(3000) }).then(
        () => true,
        () => false,
      );
      if (!listening) throw this.notRunning();
      throw new UiApiError(
        `Something listens on 127.0.0.1:${this.uiPort}, but mcpscope found no token for it: no --token, no $MCPSCOPE_TOKEN, and no discovery file ${discoveryPath(this.uiPort, this.env)}. Pass the token mcpscope printed (the URL ends in ?token=…) with --token, or set MCPSCOPE_HOME to the one that mcpscope uses.`,
      );
    }
    let res: Response;
    try {
      res = await fetch(`${this.origin}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${t.token}`,
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      if (cause === 'ECONNREFUSED' || cause === 'ECONNRESET') throw this.notRunning();
      if ((err as Error).name === 'TimeoutError')
        throw new UiApiError(`mcpscope on 127.0.0.1:${this.uiPort} did not answer ${path} within ${REQUEST_TIMEOUT_MS / 1000} s.`);
      throw new UiApiError(`Could not reach mcpscope on 127.0.0.1:${this.uiPort}: ${(err as Error).message}`);
    }
    if (res.ok) return res;
    let said = '';
    try {
      said = ((await res.json()) as { error?: string }).error ?? '';
    } catch {
      /* not JSON */
    }
    if (res.status === 401)
      throw new UiApiError(
        t.from === 'option'
          ? `The mcpscope on 127.0.0.1:${this.uiPort} refused the token given with --token / $MCPSCOPE_TOKEN: it is not that mcpscope's token. Use the token it printed (its URL ends in ?token=…), or leave --token out to read it from its discovery file.`
          : `The mcpscope on 127.0.0.1:${this.uiPort} refused the token from its discovery file (a stale file, or another program on that port). Pass the token it printed with --token.`,
        401,
      );
    if (res.status === 403) throw new UiApiError(`127.0.0.1:${this.uiPort} refused the request: ${said || 'forbidden'}`, 403);
    if (res.status === 404 && said === '')
      throw new UiApiError(
        `127.0.0.1:${this.uiPort} does not know ${path.split('?')[0]}: it is not an mcpscope, or an older one without this API.`,
        404,
      );
    throw new UiApiError(said || `mcpscope answered ${path} with HTTP ${res.status}.`, res.status);
  }
}
