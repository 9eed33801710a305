import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HungDms {
  url: string;
  /** Requests received and still held open (the client has not given up on them). */
  open(): number;
  /** Resolves when the first request arrives. */
  firstRequest: Promise<void>;
  close(): Promise<void>;
}

/** A slow-loris dms on loopback: it accepts every request and never answers. */
export async function startHungDms(): Promise<HungDms> {
  const held = new Set<http.ServerResponse>();
  let arrived: () => void = () => undefined;
  const firstRequest = new Promise<void>((resolve) => (arrived = resolve));
  const server = http.createServer((req, res) => {
    held.add(res);
    res.on('close', () => held.delete(res));
    arrived();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    open: () => held.size,
    firstRequest,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
