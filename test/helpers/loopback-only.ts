import net from 'node:net';

// Tests may talk to this machine only. Any other destination is a bug in the test or the code under test.
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/;
// Called with the socket as `this` (original.apply below), so unbinding it is the point.
// eslint-disable-next-line @typescript-eslint/unbound-method
const original = net.Socket.prototype.connect;

function hostOf(args: unknown[]): string | undefined {
  const first = args[0];
  if (Array.isArray(first)) return hostOf(first);
  if (first && typeof first === 'object') {
    const options = first as { host?: string; path?: string };
    if (options.path) return 'localhost';
    return options.host ?? 'localhost';
  }
  if (typeof first === 'string' && Number.isNaN(Number(first))) return 'localhost'; // a unix socket path
  return typeof args[1] === 'string' ? args[1] : 'localhost';
}

net.Socket.prototype.connect = function connect(this: net.Socket, ...args: unknown[]) {
  const host = hostOf(args);
  if (host !== undefined && !LOOPBACK.test(host)) {
    throw new Error(`test network guard: connection to ${host} refused (tests may only reach loopback)`);
  }
  return (original as (...a: unknown[]) => net.Socket).apply(this, args);
};
