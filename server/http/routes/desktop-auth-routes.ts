import { Router } from 'express';
import type { AuthService } from '../../auth/auth-service.js';
import { redeemDesktopToken, type DesktopSignIn } from '../../auth/desktop-sign-in.js';
import type { Config } from '../../config.js';
import { setSessionCookie } from '../session-cookie.js';

/** The desktop window's sign-in: main hands the window a one-time token, traded here for the session cookie. */
export interface DesktopAuthRoutesDeps {
  auth: AuthService;
  desktopSignIn: DesktopSignIn;
  config: Pick<Config, 'publicUrl'>;
}

export function desktopAuthRoutes({ auth, desktopSignIn, config }: DesktopAuthRoutesDeps): Router {
  const router = Router();
  router.get('/auth/desktop', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : undefined;
    redeemDesktopToken(desktopSignIn, token, {
      remote: req.socket.remoteAddress,
      local: req.socket.localAddress,
    });
    setSessionCookie(req, res, auth.issueSession(), config.publicUrl);
    res.redirect(303, '/');
  });
  return router;
}
