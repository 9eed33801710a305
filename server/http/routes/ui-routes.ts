import { Router } from 'express';
import type { Session } from '../../auth/sessions.js';
import type { AuthService } from '../../auth/auth-service.js';
import type { Config } from '../../config.js';
import type { DmsInfo } from '../../dms/dms-connection.js';
import type { ServiceLog } from '../../log-file.js';

/** The signed-in user, the non-secret settings the Web UI needs, and the service log. */
export interface UiRoutesDeps {
  auth: AuthService;
  config: Pick<Config, 'webhookDryRun' | 'rulesDir' | 'traceRetention'>;
  dmsInfo: DmsInfo;
  serviceLog: ServiceLog;
}

export function uiRoutes({ auth, config, dmsInfo, serviceLog }: UiRoutesDeps): Router {
  const router = Router();

  router.get('/me', (_req, res) => {
    const session = res.locals.session as Session;
    res.json({ username: session.username });
  });

  router.get('/config', (_req, res) => {
    res.json({
      dms_url: dmsInfo.url,
      demo: dmsInfo.demo,
      webhook_path: '/api/webhook/dms',
      webhook_token_configured: auth.webhookTokenConfigured,
      webhook_dry_run: config.webhookDryRun,
      rules_dir: config.rulesDir,
      trace_retention: config.traceRetention,
    });
  });

  // The service log as a download (the desktop app writes one; "the service log has the details" leads here).
  router.get('/log', (_req, res) => {
    const text = serviceLog.read();
    res.type('text/plain; charset=utf-8').attachment('dms-rules-service.log').send(text);
  });

  return router;
}
