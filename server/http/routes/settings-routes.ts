import express, { Router } from 'express';
import { setSessionCookie } from '../session-cookie.js';
import type { AuthService } from '../../auth/auth-service.js';
import type { Config } from '../../config.js';
import type { SettingsService } from '../../settings/settings-service.js';
import { parseSettingsPatch } from '../../settings/settings-input.js';
import { loginSource } from '../login-source.js';

/** The settings page's API (on the session-only /ui router): read and change config.yml. */
export interface SettingsRoutesDeps {
  settings: SettingsService;
  auth: AuthService;
  config: Pick<Config, 'publicUrl'>;
}

export function settingsRoutes({ settings, auth, config }: SettingsRoutesDeps): Router {
  const router = Router();
  const json = express.json({ limit: '16kb' });

  router.get('/settings', (_req, res) => {
    res.json(settings.get());
  });

  router.put('/settings', json, async (req, res) => {
    const result = await settings.update(parseSettingsPatch(req.body), (password) =>
      auth.confirmPassword(password, loginSource(req)),
    );
    if (result.credentials_changed) {
      // A new admin name or password ends every session; keep the person who made the change signed in.
      setSessionCookie(req, res, auth.issueSession(), config.publicUrl);
    }
    res.json({
      ok: true,
      restart_required: result.restart_required,
      dms_switched: result.dms_switched,
      overridden_by_env: result.overridden_by_env,
    });
  });

  // Notify targets: secrets are write-only (see settings/notify-target-settings.ts).
  router.get('/settings/notify-targets', (_req, res) => {
    res.json(settings.notifyTargets.list());
  });
  router.put('/settings/notify-targets/:name', json, (req, res) => {
    res.json({ ok: true, target: settings.notifyTargets.put(req.params.name, req.body) });
  });
  router.delete('/settings/notify-targets/:name', (req, res) => {
    settings.notifyTargets.remove(req.params.name);
    res.json({ ok: true });
  });
  router.post('/settings/notify-targets/:name/test', async (req, res) => {
    res.json(await settings.notifyTargets.test(req.params.name));
  });

  return router;
}
