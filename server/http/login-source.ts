import net from 'node:net';
import type { Request } from 'express';
import type { ThrottleSource } from '../auth/login-throttle.js';
import { isLoopbackAddress } from '../auth/loopback.js';
import { hasForwardingHeaders } from './middleware/allowed-hosts.js';

/**
 * The sign-in throttle's view of a request. `req.ip` is the forwarded client only when SVC_TRUST_PROXY
 * names the proxy; otherwise it is the socket's peer. A loopback peer that carries forwarding headers is
 * an untrusted proxy on this machine speaking for unknown clients, so it is not "local": otherwise anyone
 * behind that proxy would share the admin's short local delay.
 */
export function loginSource(req: Request): ThrottleSource {
  const peer = req.socket.remoteAddress;
  const client = req.ip ?? peer ?? 'unknown';
  const forwardedByTrustedProxy = client !== peer;
  const thisComputer = isLoopbackAddress(client) || (!forwardedByTrustedProxy && client === req.socket.localAddress);
  return { key: throttleKey(client), local: thisComputer && (forwardedByTrustedProxy || !hasForwardingHeaders(req)) };
}

/**
 * One key per machine as far as an address can tell: an IPv4 address (also in its IPv6-mapped form), or
 * the /64 network of an IPv6 address, since one LAN host can take any number of addresses in its /64 and
 * a source that has not failed yet is never held back by the failures of others.
 */
export function throttleKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!net.isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, without `::` shortening or a zone. */
function expandIPv6(address: string): string[] {
  const [head, tail = ''] = address.split('%')[0].toLowerCase().split('::');
  const split = (part: string) => (part ? part.split(':') : []);
  const left = split(head);
  const right = address.includes('::') ? split(tail) : [];
  const missing = 8 - left.length - right.length;
  return [...left, ...Array<string>(Math.max(missing, 0)).fill('0'), ...right].map((group) =>
    group.replace(/^0+(?=.)/, ''),
  );
}
