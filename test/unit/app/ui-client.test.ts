/**
 * proxy/app/agent/ui-client.ts: which token `mcpscope mcp` presents (--token, $MCPSCOPE_TOKEN, the
 * discovery file, looked up per call) and how each failure of the API reads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UiClient } from '../../../proxy/app/agent/ui-client.js';
import { UiApiError } from '../../../proxy/core/model/errors.js';
import { writeDiscovery } from '../../../proxy/app/serve/discovery.js';
import { freePort } from '../../support/free-port.js';

const homes: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

function home(): string {
  const h = mkdtempSync(join(tmpdir(), 'mcpscope-ui-client-'));
  homes.push(h);
  return h;
}

/** A stand-in UI on 127.0.0.1: answers every request with `status` and `body`, recording the Authorization it got. */
async function stub(status: number, body: string): Promise<{ port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as { port: number }).port, seen };
}

async function failure(p: Promise<unknown>): Promise<UiApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UiApiError);
  return err as UiApiError;
}

describe('UiClient', () => {
  it('presents --token, else $MCPSCOPE_TOKEN, else the discovery file, read again on every call', async () => {
    const env = { MCPSCOPE_HOME: home() };
    const port = 7777;
    expect(new UiClient({ uiPort: port, env }).token()).toBeUndefined();
    const remove = writeDiscovery(port, { token: 'from-the-discovery-file', url: 'http://127.0.0.1:7777/' }, env);
    const client = new UiClient({ uiPort: port, env });
    expect(client.token()).toEqual({ token: 'from-the-discovery-file', from: 'discovery' });
    writeDiscovery(port, { token: 'a-restarted-mcpscope', url: 'http://127.0.0.1:7777/' }, env);
    expect(client.token()).toEqual({ token: 'a-restarted-mcpscope', from: 'discovery' });
    expect(client.secrets()).toEqual(['a-restarted-mcpscope']);
    expect(new UiClient({ uiPort: port, env: { ...env, MCPSCOPE_TOKEN: 'from-env' } }).token()).toEqual({
      token: 'from-env',
      from: 'option',
    });
    expect(new UiClient({ uiPort: port, token: 'from-flag', env: { ...env, MCPSCOPE_TOKEN: 'from-env' } }).token()!.token).toBe(
      'from-flag',
    );
    remove();
  });

  it('sends the token as a bearer and reads JSON', async () => {
    const ui = await stub(200, '[{"id":"s1"}]');
    const client = new UiClient({ uiPort: ui.port, token: 'tok-123456789', env: {} });
    expect(await client.json('/api/sessions')).toEqual([{ id: 's1' }]);
    expect(ui.seen).toEqual(['Bearer tok-123456789']);
  });

  it('says each failure in plain words', async () => {
    const down = await freePort();
    expect((await failure(new UiClient({ uiPort: down, token: 't', env: {} }).json('/api/sessions'))).message).toMatch(
      new RegExp(`^No mcpscope is running on 127\\.0\\.0\\.1:${down} — start one with \`mcpscope --target <url>\``),
    );
    expect((await failure(new UiClient({ uiPort: down, env: { MCPSCOPE_HOME: home() } }).json('/api/sessions'))).message).toMatch(
      /^No mcpscope is running/,
    );

    const refusing = await stub(401, '{"error":"needs its token"}');
    const flagged = await failure(new UiClient({ uiPort: refusing.port, token: 'wrong', env: {} }).json('/api/sessions'));
    expect(flagged.status).toBe(401);
    expect(flagged.message).toMatch(/refused the token given with --token \/ \$MCPSCOPE_TOKEN/);
    const env = { MCPSCOPE_HOME: home() };
    writeDiscovery(refusing.port, { token: 'stale-token', url: '' }, env);
    expect((await failure(new UiClient({ uiPort: refusing.port, env }).json('/api/sessions'))).message).toMatch(
      /refused the token from its discovery file \(a stale file, or another program on that port\)/,
    );
    // Something listens, but there is no token to present at all: the message names the file it looked for.
    const empty = home();
    const none = (await failure(new UiClient({ uiPort: refusing.port, env: { MCPSCOPE_HOME: empty } }).json('/api/sessions'))).message;
    expect(none).toMatch(/^Something listens on 127\.0\.0\.1:\d+, but mcpscope found no token for it/);
    expect(none).toContain(`no discovery file ${join(empty, `ui-${refusing.port}.json`)}.`);

    const other = await stub(404, 'not json');
    expect((await failure(new UiClient({ uiPort: other.port, token: 't', env: {} }).json('/api/search'))).message).toMatch(
      /does not know \/api\/search: it is not an mcpscope, or an older one without this API/,
    );
    const said = await stub(400, '{"error":"dir must be c2s or s2c"}');
    expect((await failure(new UiClient({ uiPort: said.port, token: 't', env: {} }).json('/api/search?dir=x'))).message).toBe(
      'dir must be c2s or s2c',
    );
    const garbled = await stub(200, '<html>');
    expect((await failure(new UiClient({ uiPort: garbled.port, token: 't', env: {} }).json('/api/sessions'))).message).toMatch(/not JSON/);
  });
});
