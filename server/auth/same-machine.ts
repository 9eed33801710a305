import { isLoopbackAddress } from './loopback.js';

/** Host names that can only mean this machine. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The host name of a Host header (port and case dropped), or null when it is not a plain host[:port]. */
function hostName(host: string | undefined): string | null {
  if (!host || /[\s/@?#\\]/.test(host)) return null;
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * True only for a request from this machine: the peer is a loopback address AND the Host names loopback.
 * The second half stops DNS rebinding: a page elsewhere whose name now resolves to 127.0.0.1 still sends
 * its own name as Host, so the browser's request is refused even though it arrives over loopback.
 */
export function isSameMachineRequest(request: {
  remoteAddress: string | undefined;
  host: string | undefined;
  forwarded?: boolean;
}): boolean {
  const name = hostName(request.host);
  // A reverse proxy on this machine forwards other machines' requests over loopback: never "this machine".
  return !request.forwarded && isLoopbackAddress(request.remoteAddress) && name !== null && LOOPBACK_HOSTS.has(name);
}
