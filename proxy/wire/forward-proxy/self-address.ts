/**
 * The forward proxy's loop guard: does `host:port` lead back to mcpscope's own forward proxy,
 * however the host is spelt? Names were compared before (issue 26, finding 9), so
 * `CONNECT 2130706433:<port>`, `127.1`, `0x7f000001`, `[::ffff:127.0.0.1]` or `[::]` went
 * through and each tunnel to itself held two more file descriptors. Now the address is compared:
 * - a literal in any spelling a URL or getaddrinfo accepts (decimal, octal, hex and short IPv4
 *   forms, IPv4-mapped IPv6) is made canonical first (WHATWG URL's host parser);
 * - a name is resolved (`dns.lookup`, all addresses), so a DNS name that points at this machine
 *   is caught too;
 * - the socket mcpscope connected is checked once more by its remote address (`isSelfSocket`):
 *   a name that resolves elsewhere first and here afterwards (DNS rebinding) cannot slip past.
 * An address "of this machine" is any loopback one (127/8, ::1), the unspecified ones (0.0.0.0,
 * ::: a connection to them reaches this machine) and those of its network interfaces. Only the
 * ports mcpscope's forward proxy listens on count, so none of this runs for any other port: the
 * common CONNECT (to :443) costs one integer comparison.
 */
import { lookup } from 'node:dns/promises';
import { isIP, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { isLoopbackHostname } from '../guards.js';

/**
 * An IP address literal in one canonical spelling (IPv4 dotted-decimal; IPv6 compressed, lower
 * case, an IPv4-mapped one as its IPv4 address); undefined when `host` is not an address literal.
 * Brackets around IPv6 are optional.
 */
export function canonicalAddress(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === '' || bare.includes('%')) return undefined; // zone ids (fe80::1%eth0): link-local, not ours to reach
  let parsed: string;
  try {
    parsed = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname;
  } catch {
    return undefined;
  }
  if (parsed.startsWith('[')) {
    const v6 = parsed.slice(1, -1);
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
    if (!mapped) return v6;
    const hi = parseInt(mapped[1], 16);
    const lo = parseInt(mapped[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return isIP(parsed) === 4 ? parsed : undefined;
}

/** This machine's interface addresses, canonical. Read when asked (interfaces come and go). */
function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      const c = canonicalAddress(a.address);
      if (c) out.add(c);
    }
  }
  return out;
}

/** True for a canonical address (canonicalAddress) that a connection to would reach this machine. */
export function isOwnAddress(address: string): boolean {
  if (address.startsWith('127.') || address === '0.0.0.0' || address === '::1' || address === '::') return true;
  return interfaceAddresses().has(address);
}

export class SelfGuard {
  /** The ports mcpscope listens on here (the forward proxy's, once it is bound). */
  private readonly ports: () => readonly number[];

  constructor(ports: () => readonly number[]) {
    this.ports = ports;
  }

  /** Whether `port` is one of mcpscope's: only then can a target be mcpscope itself. O(1) for one port. */
  watches(port: number): boolean {
    return this.ports().includes(port);
  }

  /**
   * Synchronously: `host` (a name without brackets or an address in any spelling) on one of
   * mcpscope's ports is mcpscope, by name (localhost, *.localhost) or by address. Names that need
   * resolving are `isSelf`'s.
   */
  isSelfLiteral(host: string, port: number): boolean {
    if (!this.watches(port)) return false;
    if (isLoopbackHostname(host)) return true;
    const address = canonicalAddress(host);
    return address !== undefined && isOwnAddress(address);
  }

  /**
   * `isSelfLiteral`, and for a name: whether any address it resolves to is this machine's. A name
   * that does not resolve is not mcpscope (the connection that follows fails and says so).
   */
  async isSelf(host: string, port: number): Promise<boolean> {
    if (!this.watches(port)) return false;
    if (this.isSelfLiteral(host, port)) return true;
    if (canonicalAddress(host) !== undefined) return false;
    try {
      const found = await lookup(host, { all: true });
      return found.some((a) => {
        const c = canonicalAddress(a.address);
        return c !== undefined && isOwnAddress(c);
      });
    } catch {
      return false;
    }
  }

  /** A connected socket whose far end is one of mcpscope's own ports on this machine. */
  isSelfSocket(socket: Socket): boolean {
    const port = socket.remotePort;
    if (port === undefined || !this.watches(port)) return false;
    const address = socket.remoteAddress === undefined ? undefined : canonicalAddress(socket.remoteAddress);
    return address !== undefined && isOwnAddress(address);
  }
}

/** The error an upstream connection to mcpscope itself fails with (its `code` names it in the 502). */
export function loopError(host: string, port: number): Error & { code: string } {
  return Object.assign(new Error(`${host}:${port} is mcpscope's own forward proxy: forwarding there would loop, so mcpscope did not`), {
    code: 'EPROXYLOOP',
  });
}
