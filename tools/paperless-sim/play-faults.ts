import type { IncomingMessage, ServerResponse } from 'node:http';
import { routePattern } from '../../server/dms/demo/api-handler.js';
import type { FaultInjector } from './faults.js';
import { writeResult } from '../../server/dms/demo/http-kit.js';

const STATUS_TEXT: Record<number, string> = { 502: 'Bad Gateway', 504: 'Gateway Timeout' };

/**
 * Counts an API request under its route pattern and plays the faults that match it, before authentication (as a
 * proxy in front of Paperless would): latency and holds delay it, a terminal fault answers or drops it.
 * True when the request goes on to the API; false when a fault already answered it or dropped the connection.
 */
export async function playFaults(
  req: IncomingMessage,
  res: ServerResponse,
  faults: FaultInjector,
  count: (key: string) => void,
): Promise<boolean> {
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', 'http://sim');
  const path = url.pathname;
  const pattern = routePattern(path);
  count(`${method} ${pattern}`);

  const { latencyMs, held, terminal, answerAfter } = faults.take(method, path, pattern, url.searchParams);
  if (answerAfter.length > 0) holdAnswer(res, Promise.all(answerAfter));
  if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
  await Promise.all(held);
  if (terminal?.kind === 'drop') {
    req.socket.destroy();
    return false;
  }
  if (terminal?.kind === 'status') {
    const status = terminal.status ?? 500;
    writeResult(res, { status, text: STATUS_TEXT[status] ?? 'Internal Server Error' }, {});
    return false;
  }
  if (terminal?.kind === 'rate_limit') {
    const seconds = terminal.retryAfter ?? 1;
    writeResult(
      res,
      {
        status: 429,
        body: { detail: `Request was throttled. Expected available in ${seconds} seconds.` },
        headers: { 'retry-after': String(seconds) },
      },
      {},
    );
    return false;
  }
  return true;
}

/** The request is handled at once; its answer (headers and body go out with `end`) leaves once `until` resolves. */
function holdAnswer(res: ServerResponse, until: Promise<unknown>): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    void until.then(() => end(...args));
    return res;
  }) as ServerResponse['end'];
}
