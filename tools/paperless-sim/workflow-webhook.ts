import { randomBytes } from 'node:crypto';
import type { SimStore } from '../../server/dms/demo/store.js';

/**
 * Body shapes of Paperless's webhook action (`test/fixtures/webhook/webhook-examples.json`):
 * json = A (params as JSON), raw = B (body template, Content-Type from headers), form = C,
 * json-string = D (body JSON-encoded again), multipart = E (params + file), empty = F (no params).
 */
export type WebhookShape = 'json' | 'raw' | 'form' | 'json-string' | 'multipart' | 'empty';
export type WebhookTrigger = 'added' | 'updated';

export interface WorkflowWebhookConfig {
  url: string;
  headers?: Record<string, string>;
  shape?: WebhookShape;
  triggers?: WebhookTrigger[];
  /** Value of `PAPERLESS_URL` used in `doc_url` (default: the simulator's own URL). */
  paperlessUrl?: string;
  /**
   * The backoff unit: Celery's `retry_backoff=True` waits up to 1, 2, 4 units (default 1000 ms) before the three
   * retries; tests scale it down so a retry sequence takes milliseconds.
   */
  retryBaseMs?: number;
  /**
   * Celery's `retry_jitter` (default true): each wait is a whole number of units drawn from 0..2^n
   * (`random.randrange(2**n + 1)`). False waits exactly 1, 2, 4 units, so a test knows the schedule.
   */
  retryJitter?: boolean;
  /** How long after the write a webhook is sent at the earliest (Celery queue latency); default 1 s. */
  echoDelayMs?: number;
  /** Celery workers sending webhooks (`PAPERLESS_TASK_WORKERS`, default 1): later echoes wait for earlier ones. */
  workers?: number;
  /**
   * Webhooks wait until the test releases them (`releaseWebhooks`) instead of for `echoDelayMs`: a test orders
   * "the echo arrives after the service's run ended" without waiting for a clock.
   */
  hold?: boolean;
}

export interface WebhookStats {
  /** Events that produced a webhook (one per PATCH/PUT/bulk-edited document/added document). */
  queued: number;
  /** HTTP attempts made, retries included. */
  attempts: number;
  delivered: number;
  /** Deliveries given up: a connection error or timeout at once, a non-2xx answer after the third retry. */
  failed: number;
  /** The waits before each retry, in ms, in the order they were scheduled (the last 1,000). */
  retryWaitsMs: number[];
}

export interface WorkflowWebhook {
  configure(config: WorkflowWebhookConfig | null): void;
  fire(trigger: WebhookTrigger, documentId: number): void;
  stats(): WebhookStats;
  resetStats(): void;
  /** Webhooks queued or being sent. */
  pending(): number;
  /** Resolves when every queued webhook has been delivered or given up (held ones wait for `release`). */
  idle(): Promise<void>;
  /** With `hold`: sends the webhooks queued so far; answers how many. */
  release(): number;
  close(): Promise<void>;
}

const TIMEOUT_MS = 5000;
const RETRIES = 3;

function renderParams(store: SimStore, trigger: WebhookTrigger, id: number, base: string): Record<string, string> {
  const doc = store.getDocument(id);
  const name = (kind: 'correspondents' | 'document_types', ref: number | null | undefined) =>
    ref == null ? '' : (store.object(kind, ref)?.name ?? '');
  return {
    event: trigger === 'added' ? 'document_added' : 'document_updated',
    doc_id: String(id),
    doc_url: `${base}/documents/${id}/`,
    title: doc?.title ?? '',
    correspondent: name('correspondents', doc?.correspondent),
    document_type: name('document_types', doc?.document_type),
    added: doc?.added ?? '',
    created: doc?.created ?? '',
    original_filename: (doc?.original_file_name ?? '').replace(/\.[^.]+$/, ''),
  };
}

function encode(shape: WebhookShape, p: Record<string, string>): { body: string | Buffer; contentType?: string } {
  // Without `doc_id` (2.x) each shape carries `doc_url` in its place.
  const idPart = p.doc_id === undefined ? '' : `"doc_id": ${p.doc_id}, `;
  const raw = `{"event": "${p.event}", ${idPart}"doc_url": "${p.doc_url}", "title": ${JSON.stringify(p.title)}, "original_filename": ${JSON.stringify(p.original_filename)}}`;
  const id: [string, string] = p.doc_id === undefined ? ['doc_url', p.doc_url] : ['doc_id', p.doc_id];
  switch (shape) {
    case 'json': {
      const { original_filename: _omit, ...params } = p;
      return { body: JSON.stringify(params), contentType: 'application/json' };
    }
    case 'raw':
      return { body: raw };
    case 'form':
      return {
        body: new URLSearchParams({
          ...(p.doc_id === undefined ? {} : { doc_id: p.doc_id }),
          doc_url: p.doc_url,
        }).toString(),
        contentType: 'application/x-www-form-urlencoded',
      };
    case 'json-string':
      return {
        body: JSON.stringify(`{"${id[0]}": ${id[0] === 'doc_id' ? id[1] : JSON.stringify(id[1])}}`),
        contentType: 'application/json',
      };
    case 'multipart': {
      const boundary = randomBytes(16).toString('hex');
      const body =
        `--${boundary}\r\nContent-Disposition: form-data; name="${id[0]}"\r\n\r\n${id[1]}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${p.original_filename || 'document'}.pdf"\r\n` +
        `Content-Type: application/pdf\r\n\r\n%PDF-1.4 simulated\r\n--${boundary}--\r\n`;
      return { body, contentType: `multipart/form-data; boundary=${boundary}` };
    }
    default:
      return { body: '' };
  }
}

interface EchoTask {
  cfg: WorkflowWebhookConfig;
  /** Rendered when the workflow ran (as Paperless does), not when the task is sent. */
  params: Record<string, string>;
  attempt: number;
  dueAt: number;
}

/**
 * Celery's `get_exponential_backoff_interval(factor=1, retries=n, maximum=600, full_jitter=retry_jitter)`: 2^n
 * units, or with jitter a whole number of units from 0 to 2^n; a `Retry-After` header plays no part.
 */
export function retryWait(cfg: Pick<WorkflowWebhookConfig, 'retryBaseMs' | 'retryJitter'>, retries: number): number {
  const units = Math.min(600, 2 ** retries);
  const drawn = cfg.retryJitter === false ? units : Math.floor(Math.random() * (units + 1));
  return drawn * (cfg.retryBaseMs ?? 1000);
}

/** Default latency between a write and its webhook: Celery picks the task up after the request, often behind other work. */
export const DEFAULT_ECHO_DELAY_MS = 1000;

/**
 * Paperless's workflow webhook action, emulated like its Celery task `send_webhook` (`retry_backoff=True`,
 * `autoretry_for=(httpx.HTTPStatusError,)`, `max_retries=3`): every event is queued, a fixed number of workers
 * (`PAPERLESS_TASK_WORKERS`, default 1) take tasks in order once `echoDelayMs` has passed, 5 s timeout, no
 * redirects; a non-2xx answer is retried 3 times with backoff (as a new task), then the delivery is dropped; a
 * connection error or timeout is not retried.
 */
export function createWorkflowWebhook(store: SimStore, ownUrl: () => string, docId = true): WorkflowWebhook {
  let config: WorkflowWebhookConfig | null = null;
  const stats: WebhookStats = { queued: 0, attempts: 0, delivered: 0, failed: 0, retryWaitsMs: [] };
  const tasks: EchoTask[] = [];
  let busy = 0;
  let wake: NodeJS.Timeout | undefined;
  let idleWaiters: Array<() => void> = [];
  const controller = new AbortController();

  /** One HTTP attempt; answers whether Paperless would retry it. */
  async function attempt(task: EchoTask): Promise<'done' | 'retry'> {
    const { cfg, params } = task;
    const { body, contentType } = encode(cfg.shape ?? 'json', params);
    const headers: Record<string, string> = { accept: '*/*', 'user-agent': 'python-httpx/0.28.1' };
    if (contentType) headers['content-type'] = contentType;
    for (const [key, value] of Object.entries(cfg.headers ?? {}))
      if (key.toLowerCase() !== 'host') headers[key] = value;
    stats.attempts++;
    let status: number;
    try {
      const res = await fetch(cfg.url, {
        method: 'POST',
        headers,
        // Bytes, not a string: fetch would otherwise add a text/plain Content-Type Paperless never sends.
        body: body === '' ? undefined : Buffer.from(body),
        redirect: 'manual',
        signal: AbortSignal.any([controller.signal, AbortSignal.timeout(TIMEOUT_MS)]),
      });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      // Connection errors and timeouts are not retried by Paperless: the webhook is dropped.
      stats.failed++;
      return 'done';
    }
    if (status >= 200 && status < 300) {
      stats.delivered++;
      return 'done';
    }
    if (task.attempt === RETRIES) {
      stats.failed++;
      return 'done';
    }
    return 'retry';
  }

  // Held webhooks wait for the test, so they do not keep the simulator busy.
  const due = () => tasks.filter((t) => t.dueAt !== Infinity).length;
  const checkIdle = () => {
    if (due() > 0 || busy > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  };

  const pump = () => {
    if (wake) clearTimeout(wake);
    wake = undefined;
    if (controller.signal.aborted) return checkIdle();
    const now = Date.now();
    while (busy < (config?.workers ?? 1)) {
      const index = tasks.findIndex((t) => t.dueAt <= now);
      if (index < 0) break;
      const [task] = tasks.splice(index, 1);
      busy++;
      void attempt(task)
        .then((result) => {
          if (result === 'retry' && !controller.signal.aborted) {
            const wait = retryWait(task.cfg, task.attempt);
            if (stats.retryWaitsMs.length < 1000) stats.retryWaitsMs.push(wait);
            tasks.push({ ...task, attempt: task.attempt + 1, dueAt: Date.now() + wait });
          }
        })
        .finally(() => {
          busy--;
          pump();
        });
    }
    const next = Math.min(...tasks.map((t) => t.dueAt));
    // Held webhooks (due at Infinity) wait for `release`, not for a timer.
    if (Number.isFinite(next) && busy < (config?.workers ?? 1)) wake = setTimeout(pump, Math.max(0, next - now));
    checkIdle();
  };

  return {
    configure(next) {
      config = next;
    },
    fire(trigger, documentId) {
      const cfg = config;
      if (!cfg || !(cfg.triggers ?? ['added', 'updated']).includes(trigger)) return;
      stats.queued++;
      const params = renderParams(store, trigger, documentId, (cfg.paperlessUrl ?? ownUrl()).replace(/\/+$/, ''));
      // `{{ doc_id }}` exists from 3.0.0; a 2.x workflow can only send `doc_url` (templating/workflows.py).
      if (!docId) delete params.doc_id;
      const dueAt = cfg.hold ? Infinity : Date.now() + (cfg.echoDelayMs ?? DEFAULT_ECHO_DELAY_MS);
      tasks.push({ cfg, params, attempt: 0, dueAt });
      // Queued like a Celery task: sent after the request that caused it has answered.
      setImmediate(pump);
    },
    stats: () => ({ ...stats, retryWaitsMs: [...stats.retryWaitsMs] }),
    resetStats() {
      Object.assign(stats, { queued: 0, attempts: 0, delivered: 0, failed: 0, retryWaitsMs: [] });
    },
    pending: () => tasks.length + busy,
    release() {
      const held = tasks.filter((t) => t.dueAt === Infinity);
      for (const task of held) task.dueAt = Date.now();
      pump();
      return held.length;
    },
    idle() {
      if (due() === 0 && busy === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async close() {
      controller.abort();
      tasks.length = 0;
      if (wake) clearTimeout(wake);
      if (busy > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
}
