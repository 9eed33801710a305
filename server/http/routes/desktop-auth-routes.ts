import { Router } from 'express';
import { setSessionCookie } from '../session-cookie.js';
import { ForbiddenError, UnauthorizedError } from '../../errors.js';
import type { Services } from '../../services.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * The desktop window's sign-in: main hands the window a one-time token, this route trades it for the
 * normal session cookie. Only callers on this machine may use it, so the LAN still needs the login.
 */
export function desktopAuthRoutes(services: Services): Router {
  const router = Router();

  router.get('/auth/desktop', (req, res) => {
    // A caller whose address is the socket's own local address is this computer too (SVC_HOST set to a LAN IP).
    const remote = req.socket.remoteAddress ?? '';
    if (!LOOPBACK.test(remote) && remote !== req.socket.localAddress) {
      throw new ForbiddenError('The desktop sign-in works only from this computer; sign in with the admin account.');
    }
    const token = typeof req.query.token === 'string' ? req.query.token : undefined;
    if (!services.desktopSignIn.consume(token)) {
      throw new UnauthorizedError('This desktop sign-in link is unknown, expired or already used; reopen the window from the app.');
    }
    setSessionCookie(req, res, services.auth.issueSession());
    res.redirect(303, '/');
  });

  return router;
}
