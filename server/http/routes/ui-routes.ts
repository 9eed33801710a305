import { Router } from 'express';
import type { Session } from '../../auth/sessions.js';
import type { Services } from '../../services.js';

/** The signed-in user, the non-secret settings the Web UI needs, and the service log. */
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

  // The service log as a download (the desktop app writes one; "the service log has the details" leads here).
  router.get('/log', (_req, res) => {
    const text = services.serviceLog();
    res.type('text/plain; charset=utf-8').attachment('dms-rules-service.log').send(text);
  });

  return router;
}
