import express, { Router } from 'express';
import { setSessionCookie } from '../session-cookie.js';
import type { Services } from '../../services.js';
import { parseSettingsPatch } from '../../settings/settings-input.js';
import { loginSource } from '../login-source.js';

/** The settings page's API (on the session-only /ui router): read and change config.yml. */
export function settingsRoutes(services: Services): Router {
  const router = Router();
  const json = express.json({ limit: '16kb' });

  router.get('/settings', (_req, res) => {
    res.json(services.settings.get());
  });

  router.put('/settings', json, async (req, res) => {
    const result = await services.settings.update(parseSettingsPatch(req.body), (password) =>
      services.auth.confirmPassword(password, loginSource(req)),
    );
    if (result.credentials_changed) {
      // A new admin name or password ends every session; keep the person who made the change signed in.
      setSessionCookie(req, res, services.auth.issueSession(), services.config.publicUrl);
    }
    res.json({
      ok: true,
      restart_required: result.restart_required,
      dms_switched: result.dms_switched,
      overridden_by_env: result.overridden_by_env,
    });
  });

  return router;
}
