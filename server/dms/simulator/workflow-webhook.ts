import { randomBytes } from 'node:crypto';
import type { SimStore } from './store.js';

/**
 * Body shapes of Paperless's webhook action (`fixtures/webhook-examples.json`):
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
  /** First retry delay; Paperless uses 1 s (then 2, 4) with full jitter. */
  retryBaseMs?: number;
}

export interface WebhookStats {
  /** Events that produced a webhook (one per PATCH/PUT/bulk-edited document/added document). */
  queued: number;
  /** HTTP attempts made, retries included. */
  attempts: number;
  delivered: number;
  failed: number;
}

export interface WorkflowWebhook {
  configure(config: WorkflowWebhookConfig | null): void;
  fire(trigger: WebhookTrigger, documentId: number): void;
  stats(): WebhookStats;
  resetStats(): void;
  /** Resolves when every queued webhook has been delivered or given up. */
  idle(): Promise<void>;
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
  const raw = `{"event": "${p.event}", "doc_id": ${p.doc_id}, "doc_url": "${p.doc_url}", "title": ${JSON.stringify(p.title)}, "original_filename": ${JSON.stringify(p.original_filename)}}`;
  switch (shape) {
    case 'json': {
      const { original_filename: _omit, ...params } = p;
      return { body: JSON.stringify(params), contentType: 'application/json' };
    }
    case 'raw':
      return { body: raw };
    case 'form':
      return { body: new URLSearchParams({ doc_id: p.doc_id, doc_url: p.doc_url }).toString(), contentType: 'application/x-www-form-urlencoded' };
    case 'json-string':
      return { body: JSON.stringify(`{"doc_id": ${p.doc_id}}`), contentType: 'application/json' };
    case 'multipart': {
      const boundary = randomBytes(16).toString('hex');
      const body =
        `--${boundary}\r\nContent-Disposition: form-data; name="doc_id"\r\n\r\n${p.doc_id}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${p.original_filename || 'document'}.pdf"\r\n` +
        `Content-Type: application/pdf\r\n\r\n%PDF-1.4 simulated\r\n--${boundary}--\r\n`;
      return { body, contentType: `multipart/form-data; boundary=${boundary}` };
    }
    default:
      return { body: '' };
  }
}

/** Paperless's workflow webhook action, emulated: queued after the write, 5 s timeout, 3 jittered retries on non-2xx. */
export function createWorkflowWebhook(store: SimStore, ownUrl: () => string): WorkflowWebhook {
  let config: WorkflowWebhookConfig | null = null;
  const stats: WebhookStats = { queued: 0, attempts: 0, delivered: 0, failed: 0 };
  const pending = new Set<Promise<void>>();
  const controller = new AbortController();

  async function deliver(cfg: WorkflowWebhookConfig, trigger: WebhookTrigger, id: number): Promise<void> {
    const params = renderParams(store, trigger, id, (cfg.paperlessUrl ?? ownUrl()).replace(/\/+$/, ''));
    const { body, contentType } = encode(cfg.shape ?? 'json', params);
    const headers: Record<string, string> = { accept: '*/*', 'user-agent': 'python-httpx/0.28.1' };
    if (contentType) headers['content-type'] = contentType;
    for (const [key, value] of Object.entries(cfg.headers ?? {})) if (key.toLowerCase() !== 'host') headers[key] = value;
    for (let attempt = 0; attempt <= RETRIES; attempt++) {
      if (controller.signal.aborted) return;
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
        return;
      }
      if (status >= 200 && status < 300) {
        stats.delivered++;
        return;
      }
      if (attempt === RETRIES) break;
      const ceiling = (cfg.retryBaseMs ?? 1000) * 2 ** attempt;
      // Closing the simulator cuts the wait short instead of holding shutdown for seconds.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.random() * ceiling);
        controller.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
    stats.failed++;
  }

  return {
    configure(next) {
      config = next;
    },
    fire(trigger, documentId) {
      const cfg = config;
      if (!cfg || !(cfg.triggers ?? ['added', 'updated']).includes(trigger)) return;
      stats.queued++;
      // Queued like a Celery task: sent after the request that caused it has answered.
      const task = new Promise<void>((resolve) => setImmediate(resolve)).then(() => deliver(cfg, trigger, documentId));
      pending.add(task);
      void task.finally(() => pending.delete(task));
    },
    stats: () => ({ ...stats }),
    resetStats() {
      Object.assign(stats, { queued: 0, attempts: 0, delivered: 0, failed: 0 });
    },
    async idle() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    async close() {
      controller.abort();
      await Promise.allSettled([...pending]);
    },
  };
}
