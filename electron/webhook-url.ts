import type os from 'node:os';

type Interfaces = ReturnType<typeof os.networkInterfaces>;

/**
 * The address the dms should call. On 127.0.0.1 only a dms on this computer can reach it; when the
 * service listens on all interfaces, the first LAN IPv4 address is what a dms elsewhere needs.
 */
export function webhookUrlFor(serviceUrl: string, listenHost: string, interfaces: Interfaces): string {
  const url = new URL('/api/webhook/dms', serviceUrl);
  if (listenHost === '0.0.0.0' || listenHost === '::') {
    const lan = Object.values(interfaces)
      .flat()
      .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal);
    if (lan) url.hostname = lan.address;
  }
  return url.toString();
}
