import { Router } from 'express';
import type { Session } from '../../auth/sessions.js';
import type { Services } from '../../services.js';

/** The signed-in user and the non-secret settings the Web UI needs. */
export function uiRoutes(services: Services): Router {
  const router = Router();

  router.get('/me', (_req, res) => {
    const session = res.locals.session as Session;
    res.json({ username: session.username });
  });

  router.get('/config', (_req, res) => {
    const { config } = services;
    res.json({
      dms_url: services.dmsInfo.url,
      demo: services.dmsInfo.demo,
      webhook_path: '/api/webhook/dms',
      webhook_token_configured: services.auth.webhookTokenConfigured,
      webhook_dry_run: config.webhookDryRun,
      rules_dir: config.rulesDir,
      trace_retention: config.traceRetention,
    });
  });

  return router;
}
