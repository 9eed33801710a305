import net from 'node:net';
import type { Request, RequestHandler } from 'express';
import type { Config } from '../../config.js';
import { MisdirectedRequestError } from '../../app-errors.js';

/** The settings that decide which names and origins mean "this service". */
export type HostPolicy = Pick<Config, 'allowedHosts' | 'publicUrl'>;

interface HostAndPort {
  name: string;
  /** null when the Host header or URL gave none. */
  port: string | null;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

function splitHost(host: string): HostAndPort | null {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]/\s]+)(?::(\d{1,5}))?$/i.exec(host.trim());
  return match ? { name: match[1].toLowerCase().replace(/\.$/, ''), port: match[2] ?? null } : null;
}

/** The socket's own address as it would appear in a Host header (`[::1]`, `192.168.1.5`). */
function ownAddressName(req: Request): string {
  const local = (req.socket.localAddress ?? '').replace(/^::ffff:(?=\d+\.)/, '');
  return net.isIPv6(local) ? `[${local}]` : local;
}

/**
 * Whether a host (from a Host header or an Origin) names this service: a loopback name or the address the
 * request arrived on, with the port we listen on; or a name from SVC_ALLOWED_HOSTS / SVC_PUBLIC_URL.
 * A DNS-rebinding page can only make the browser send its own domain name, which is none of these.
 */
function namesThisService(host: HostAndPort, defaultPort: string, req: Request, policy: HostPolicy): boolean {
  const port = host.port ?? defaultPort;
  if ((LOOPBACK_NAMES.has(host.name) || host.name === ownAddressName(req)) && port === String(req.socket.localPort))
    return true;
  const listed = policy.publicUrl ? [...policy.allowedHosts, new URL(policy.publicUrl).hostname] : policy.allowedHosts;
  return listed.some((entry) => {
    const allowed = splitHost(entry);
    return allowed !== null && allowed.name === host.name && (allowed.port === null || allowed.port === port);
  });
}

/** True when the request's Host header is one this service answers to. */
export function isAllowedHost(req: Request, policy: HostPolicy): boolean {
  const host = splitHost(req.headers.host ?? '');
  return host !== null && namesThisService(host, req.secure ? '443' : '80', req, policy);
}

/**
 * True when a browser's Origin header is one of the service's own origins (parsed, never substring-matched).
 * With SVC_PUBLIC_URL set: exactly its origin (scheme, host, port; default ports normalised), plain http or
 * another port on that name being somebody else's page. Otherwise an allowed host, at its listed port or the
 * service's own. Either way a loopback name (or the address the request came to) at the port we listen on:
 * only this service can serve a page there.
 */
export function isAllowedOrigin(origin: string, req: Request, policy: HostPolicy): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const own = String(req.socket.localPort);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const name = url.hostname.toLowerCase();
  if ((LOOPBACK_NAMES.has(name) || name === ownAddressName(req)) && port === own) return true;
  if (policy.publicUrl) return url.origin === new URL(policy.publicUrl).origin;
  return policy.allowedHosts.some((entry) => {
    const allowed = splitHost(entry);
    return allowed !== null && allowed.name === name && (allowed.port ?? own) === port;
  });
}

/** True when a proxy (or someone pretending to be one) says the request was forwarded for another client. */
export function hasForwardingHeaders(req: Request): boolean {
  return FORWARDING_HEADERS.some((h) => req.headers[h] !== undefined);
}

/** The first middleware: a request for any other Host is refused (421) before it reaches anything else. */
export function requireAllowedHost(policy: HostPolicy): RequestHandler {
  return (req, _res, next) => {
    if (isAllowedHost(req, policy)) return next();
    const port = req.socket.localPort;
    next(
      new MisdirectedRequestError(
        `This service does not answer to the host name in this request; open it as http://localhost:${port}, or add the name to SVC_ALLOWED_HOSTS.`,
      ),
    );
  };
}
