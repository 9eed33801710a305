import type { Request, RequestHandler } from 'express';
import type { AuthService } from '../../auth/auth-service.js';
import { SESSION_COOKIE, type Session } from '../../auth/sessions.js';
import { ForbiddenError, UnauthorizedError } from '../../app-errors.js';
import { isAllowedOrigin, type HostPolicy } from './allowed-hosts.js';

/** The live host settings `createApp` put on the app (read per request: settings may change them). */
export function hostPolicyOf(req: Request): HostPolicy {
  return req.app.locals.hostPolicy as HostPolicy;
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  const match = header && /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : undefined;
}

/** Whether the caller is signed in or sends the API token (no error either way: for answers that say more to the admin). */
export function isAdminCaller(auth: AuthService, req: Request): boolean {
  const token = bearerToken(req);
  return token !== undefined ? auth.verifyApiToken(token) : sessionOf(auth, req) !== null;
}

function sessionOf(auth: AuthService, req: Request): Session | null {
  const cookies = req.cookies as Record<string, string> | undefined;
  return auth.verifySession(cookies?.[SESSION_COOKIE]);
}

/**
 * A browser sends Origin on cross-site writes; a write carrying our cookie from another origin is CSRF.
 * The origin is compared with the service's own origins (loopback, SVC_ALLOWED_HOSTS, SVC_PUBLIC_URL),
 * never with the request's Host, which a DNS-rebinding page controls.
 */
export function isSameOrigin(req: Request): boolean {
  const origin = req.headers.origin;
  return origin === undefined || isAllowedOrigin(origin, req, hostPolicyOf(req));
}

export function requireSameOrigin(): RequestHandler {
  return (req, _res, next) => {
    if (UNSAFE_METHODS.has(req.method) && !isSameOrigin(req)) {
      return next(new ForbiddenError('Cross-origin request refused: open the service from its own address.'));
    }
    next();
  };
}

/** UI tier: the session cookie only. A bearer token does not open the UI routes. */
export function requireSession(auth: AuthService): RequestHandler {
  return (req, res, next) => {
    const session = sessionOf(auth, req);
    if (!session) return next(new UnauthorizedError('Sign in first: no valid session.'));
    res.locals.session = session;
    next();
  };
}

/** Shared tier: the session cookie (with the origin check) or the API bearer token. */
export function requireSessionOrToken(auth: AuthService): RequestHandler {
  return (req, res, next) => {
    const token = bearerToken(req);
    if (token !== undefined) {
      if (auth.verifyApiToken(token)) {
        res.locals.principal = 'token';
        return next();
      }
      return next(new UnauthorizedError('The bearer token is not valid.'));
    }
    const session = sessionOf(auth, req);
    if (!session) return next(new UnauthorizedError('Sign in first, or send Authorization: Bearer <SVC_API_TOKEN>.'));
    if (UNSAFE_METHODS.has(req.method) && !isSameOrigin(req)) {
      return next(new ForbiddenError('Cross-origin request refused: open the service from its own address.'));
    }
    res.locals.session = session;
    res.locals.principal = 'session';
    next();
  };
}

/** Webhook tier: SVC_WEBHOOK_TOKEN (which opens nothing else), or SVC_API_TOKEN. */
export function requireWebhookToken(auth: AuthService): RequestHandler {
  return (req, _res, next) => {
    if (!auth.webhookTokenConfigured) {
      return next(
        new UnauthorizedError(
          'Webhook refused: neither SVC_WEBHOOK_TOKEN nor SVC_API_TOKEN is configured on the service.',
        ),
      );
    }
    if (!auth.verifyWebhookToken(bearerToken(req))) {
      return next(new UnauthorizedError('Webhook refused: send Authorization: Bearer <SVC_WEBHOOK_TOKEN>.'));
    }
    next();
  };
}
