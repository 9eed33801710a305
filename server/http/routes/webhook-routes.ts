import { Router } from 'express';
import type { AuthService } from '../../auth/auth-service.js';
import type { WebhookService } from '../../runs/webhook/webhook-service.js';
import { readWebhookFields } from '../../runs/webhook/read-body.js';
import { payloadFromFields } from '../../runs/webhook/parse-payload.js';
import { requireWebhookToken } from '../middleware/auth-tiers.js';

/**
 * `POST /api/webhook/dms` (webhook tier): a Paperless workflow's webhook action. Reads every body form
 * Paperless can send, queues the run and answers 202 at once (Paperless gives up after 5 s).
 */
export function webhookRoutes({ auth, webhook }: { auth: AuthService; webhook: WebhookService }): Router {
  const router = Router();
  router.post('/webhook/dms', requireWebhookToken(auth), async (req, res) => {
    const started = performance.now();
    const payload = payloadFromFields(await readWebhookFields(req));
    const read = performance.now();
    const answer = await webhook.receive(payload);
    // Where the acceptance went (the bench reads it): the body, then queueing plus the durable append.
    res.setHeader(
      'Server-Timing',
      `body;dur=${(read - started).toFixed(2)}, save;dur=${(performance.now() - read).toFixed(2)}`,
    );
    res.status(202).json(answer);
  });
  return router;
}
