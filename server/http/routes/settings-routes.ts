import express, { Router } from 'express';
import { SESSION_COOKIE, SESSION_LIFETIME_SECONDS } from '../../auth/sessions.js';
import type { Services } from '../../services.js';
import { parseSettingsPatch } from '../../settings/settings-input.js';

/** The settings page's API (on the session-only /ui router): read and change config.yml. */
export function settingsRoutes(services: Services): Router {
  const router = Router();
  const json = express.json({ limit: '16kb' });

  router.get('/settings', (_req, res) => {
    res.json(services.settings.get());
  });

  router.put('/settings', json, (req, res) => {
    const result = services.settings.update(parseSettingsPatch(req.body));
    if (result.admin_renamed) {
      // Renaming the admin invalidates sessions of the old name; keep the person who renamed it signed in.
      res.cookie(SESSION_COOKIE, services.auth.issueSession(), {
        httpOnly: true,
        sameSite: 'strict',
        secure: req.secure,
        path: '/',
        maxAge: SESSION_LIFETIME_SECONDS * 1000,
      });
    }
    res.json({ ok: true, restart_required: result.restart_required, overridden_by_env: result.overridden_by_env });
  });

  return router;
}
