/**
 * mcpscope's UI cookie (`mcpscope_token`) is host-scoped: a browser sends it with every request to
 * 127.0.0.1, the proxy ports included. The proxies take it out of what they forward — reverse and
 * forward mode — keep every other cookie byte for byte, and record each removal as a
 * `modification` (docs/transparency.md). Issue 16, finding 5.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { once } from 'node:events';
import type { McpscopeCore } from '../../proxy/app/mcpscope.js';
import { startBothModes, type BothModes } from '../support/both-modes.js';
import type { McpscopeEvent } from '../../proxy/core/model/events.js';

let upstream: Server;
let upstreamPort = 0;
/** The Cookie header of each request the upstream got, by path. */
const cookies = new Map<string, string | undefined>();
let reverse: McpscopeCore;
let forward: McpscopeCore;

let both: BothModes;
beforeAll(async () => {
  both = await startBothModes((req, res) => {
    cookies.set(req.url ?? '', req.headers.cookie);
    req.resume();
    req.on('end', () => res.end('{"jsonrpc":"2.0","id":1,"result":{}}'));
  });
  ({ upstream, upstreamPort, reverse, forward } = both);
});

afterAll(() => both?.close());

function send(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': 'application/json', ...headers }, agent: false },
      (res: IncomingMessage) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  });
}

const modifications = (scope: McpscopeCore) =>
  scope.store
    .snapshot()
    .filter((e): e is Extract<McpscopeEvent, { type: 'modification' }> => e.type === 'modification' && e.what === 'cookie-strip');

const cases = [
  { name: 'between others', sent: 'a=1; mcpscope_token=SECRET-TOKEN; b=2', expected: 'a=1; b=2' },
  { name: 'first', sent: 'mcpscope_token=SECRET-TOKEN; a=1;b=2', expected: 'a=1;b=2' },
  { name: 'last', sent: 'a=1;  b="x y"; mcpscope_token=SECRET-TOKEN', expected: 'a=1;  b="x y"' },
  { name: 'the only cookie', sent: 'mcpscope_token=SECRET-TOKEN', expected: undefined },
  {
    name: 'absent (a look-alike name stays)',
    sent: 'mcpscope_token2=x; my_mcpscope_token=y',
    expected: 'mcpscope_token2=x; my_mcpscope_token=y',
  },
];

describe('the UI cookie never reaches the upstream', () => {
  for (const mode of ['reverse', 'forward'] as const) {
    for (const [i, c] of cases.entries()) {
      it(`${mode} mode: ${c.name}`, async () => {
        const path = `/mcp/${mode}-${i}`;
        const scope = mode === 'reverse' ? reverse : forward;
        const before = modifications(scope).length;
        const status =
          mode === 'reverse'
            ? await send(reverse.proxy!.port, path, { cookie: c.sent })
            : await send(forward.forwardProxy!.port, `http://127.0.0.1:${upstreamPort}${path}`, {
                host: `127.0.0.1:${upstreamPort}`,
                cookie: c.sent,
              });
        expect(status).toBe(200);
        expect(cookies.has(path)).toBe(true);
        expect(cookies.get(path)).toBe(c.expected);
        await scope.settle();
        const added = modifications(scope).slice(before);
        if (c.expected !== c.sent) {
          expect(added).toHaveLength(1);
          expect(added[0].text).toContain('mcpscope_token');
          // Names only: the token itself is not in the record.
          expect(JSON.stringify(added[0])).not.toContain('SECRET-TOKEN');
        } else {
          expect(added).toHaveLength(0);
        }
      });
    }
  }

  it('forward mode: an upgrade (relayed blind) loses the cookie too, and its tunnel hint says so', async () => {
    const { connect } = await import('node:net');
    const upgradeCookie = new Promise<string | undefined>((resolve) =>
      upstream.once('upgrade', (req: IncomingMessage, socket) => {
        resolve(req.headers.cookie);
        socket.end('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n');
      }),
    );
    const client = connect(forward.forwardProxy!.port, '127.0.0.1');
    client.on('error', () => undefined);
    await once(client, 'connect');
    client.write(
      `GET http://127.0.0.1:${upstreamPort}/ws HTTP/1.1\r\nHost: 127.0.0.1:${upstreamPort}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nCookie: a=1; mcpscope_token=SECRET-TOKEN; b=2\r\n\r\n`,
    );
    expect(await upgradeCookie).toBe('a=1; b=2');
    const [answer] = (await once(client, 'data')) as [Buffer];
    expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 101/);
    client.destroy();
    await forward.settle();
    await expect
      .poll(async () => {
        await forward.settle();
        return JSON.stringify(forward.store.snapshot().filter((e) => e.type === 'exchange' && e.exchange.url.includes('/ws')));
      })
      .toContain('removed its own UI cookie');
    expect(JSON.stringify(forward.store.snapshot())).not.toContain('SECRET-TOKEN');
  });

  it('a request without cookies is forwarded without a Cookie header and records no modification', async () => {
    const before = modifications(reverse).length;
    expect(await send(reverse.proxy!.port, '/mcp/none', {})).toBe(200);
    expect(cookies.get('/mcp/none')).toBeUndefined();
    await reverse.settle();
    expect(modifications(reverse).length).toBe(before);
  });
});
