import { Router } from 'express';
import { redeemDesktopToken } from '../../auth/desktop-sign-in.js';
import type { Services } from '../../services.js';
import { setSessionCookie } from '../session-cookie.js';

/** The desktop window's sign-in: main hands the window a one-time token, traded here for the session cookie. */
export function desktopAuthRoutes(services: Services): Router {
  const router = Router();
  router.get('/auth/desktop', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : undefined;
    redeemDesktopToken(services.desktopSignIn, token, {
      remote: req.socket.remoteAddress,
      local: req.socket.localAddress,
    });
    setSessionCookie(req, res, services.auth.issueSession(), services.config.publicUrl);
    res.redirect(303, '/');
  });
  return router;
}
