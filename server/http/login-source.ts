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
  return { key: client, local: thisComputer && (forwardedByTrustedProxy || !hasForwardingHeaders(req)) };
}
