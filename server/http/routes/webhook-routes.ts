import { Router } from 'express';
import type { Services } from '../../services.js';
import { readWebhookFields } from '../../runs/webhook/read-body.js';
import { payloadFromFields } from '../../runs/webhook/parse-payload.js';
import { requireWebhookToken } from '../middleware/auth-tiers.js';

/**
 * `POST /api/webhook/dms` (webhook tier): a Paperless workflow's webhook action. Reads every body form
 * Paperless can send, queues the run and answers 202 at once (Paperless gives up after 5 s).
 */
export function webhookRoutes(services: Services): Router {
  const router = Router();
  router.post('/webhook/dms', requireWebhookToken(services.auth), async (req, res) => {
    const payload = payloadFromFields(await readWebhookFields(req));
    const answer = await services.webhook.receive(payload);
    res.status(202).json(answer);
  });
  return router;
}
