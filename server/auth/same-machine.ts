import net from 'node:net';

/** Host names that can only mean this machine. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  if (net.isIPv4(plain)) return plain.startsWith('127.');
  return plain === '::1';
}

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
export function isSameMachineRequest(request: { remoteAddress: string | undefined; host: string | undefined }): boolean {
  const name = hostName(request.host);
  return isLoopbackAddress(request.remoteAddress) && name !== null && LOOPBACK_HOSTS.has(name);
}
