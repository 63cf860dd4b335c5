/**
 * The forward proxy's loop guard by address (proxy/wire/forward-proxy/self-address.ts): every spelling of an
 * address of this machine on mcpscope's own port is mcpscope; other addresses and other ports are
 * not. The old guard compared names (`localhost`, 127.x.x.x, 0.0.0.0): 2130706433, 127.1,
 * 0x7f000001, 017700000001, ::ffff:127.0.0.1 and :: all passed it (issue 26, finding 9).
 */
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { canonicalAddress, isOwnAddress, SelfGuard } from '../../../proxy/wire/forward-proxy/self-address.js';

describe('canonicalAddress', () => {
  it('writes every IPv4 spelling as dotted decimal', () => {
    for (const spelling of ['127.0.0.1', '2130706433', '127.1', '0x7f000001', '017700000001', '0x7f.1', '127.000.000.001'])
      expect(canonicalAddress(spelling), spelling).toBe('127.0.0.1');
    expect(canonicalAddress('0')).toBe('0.0.0.0');
  });

  it('writes IPv6 compressed, brackets optional, and an IPv4-mapped address as its IPv4 one', () => {
    expect(canonicalAddress('[0:0:0:0:0:0:0:1]')).toBe('::1');
    expect(canonicalAddress('::')).toBe('::');
    expect(canonicalAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(canonicalAddress('[::FFFF:7F00:1]')).toBe('127.0.0.1');
    expect(canonicalAddress('fd00::2')).toBe('fd00::2');
  });

  it('is undefined for names and for what is no address', () => {
    for (const name of ['localhost', 'example.com', 'api.127.0.0.1.example', '', '[]', 'fe80::1%eth0', '999.1.1.1'])
      expect(canonicalAddress(name), name).toBeUndefined();
  });
});

describe('isOwnAddress', () => {
  it('is true for loopback, unspecified and interface addresses, false for others', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '0.0.0.0', '::1', '::']) expect(isOwnAddress(a), a).toBe(true);
    for (const list of Object.values(networkInterfaces()))
      for (const i of list ?? []) if (!i.address.includes('%')) expect(isOwnAddress(canonicalAddress(i.address)!), i.address).toBe(true);
    for (const a of ['8.8.8.8', '192.0.2.250', '2001:db8::1']) expect(isOwnAddress(a), a).toBe(false);
  });
});

describe('SelfGuard', () => {
  const guard = new SelfGuard(() => [6481]);

  it('knows every spelling of this machine on its own port, synchronously', () => {
    for (const host of [
      'localhost',
      'a.localhost',
      '127.0.0.1',
      '2130706433',
      '127.1',
      '0x7f000001',
      '017700000001',
      '0.0.0.0',
      '::',
      '::1',
      '::ffff:127.0.0.1',
    ])
      expect(guard.isSelfLiteral(host, 6481), host).toBe(true);
    expect(guard.isSelfLiteral('127.0.0.1', 6482)).toBe(false);
    expect(guard.isSelfLiteral('8.8.8.8', 6481)).toBe(false);
    expect(guard.isSelfLiteral('example.com', 6481)).toBe(false);
  });

  it('resolves names on its own port only: localhost is mcpscope, an unresolvable name is not', async () => {
    expect(await guard.isSelf('localhost', 6481)).toBe(true);
    expect(await guard.isSelf('2130706433', 6481)).toBe(true);
    expect(await guard.isSelf('no-such-host.invalid', 6481)).toBe(false);
    expect(await guard.isSelf('localhost', 443)).toBe(false);
  });

  it('recognises a connected socket by its remote address and port', async () => {
    const server = createServer((s) => s.destroy());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const socket: Socket = connect({ host: '127.0.0.1', port });
    await once(socket, 'connect');
    try {
      expect(new SelfGuard(() => [port]).isSelfSocket(socket)).toBe(true);
      expect(new SelfGuard(() => [port + 1]).isSelfSocket(socket)).toBe(false);
    } finally {
      socket.destroy();
      server.close();
    }
  });
});
