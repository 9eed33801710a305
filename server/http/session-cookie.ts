import type { Request, Response } from 'express';
import { SESSION_COOKIE, SESSION_LIFETIME_SECONDS } from '../auth/sessions.js';

/**
 * Secure when the browser reached the service over https: directly (`req.secure`, which believes
 * X-Forwarded-Proto only from SVC_TRUST_PROXY), or through SVC_PUBLIC_URL=https://… as its Host name (any port)
 * or the page's Origin says, so the public https setup needs no SVC_TRUST_PROXY for it. Plain http to the
 * service's own address keeps a cookie without Secure, which the browser would not send back there.
 */
function isHttpsForBrowser(req: Request, publicUrl: string | null): boolean {
  if (req.secure) return true;
  if (!publicUrl) return false;
  const pub = new URL(publicUrl);
  if (pub.protocol !== 'https:') return false;
  const origin = req.get('origin');
  // The name alone: a proxy may write the https port (or another) into Host, and the browser still used https.
  return hostNameOf(req.get('host')) === pub.hostname || (origin !== undefined && origin.toLowerCase() === pub.origin);
}

function hostNameOf(host: string | undefined): string | null {
  if (!host) return null;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}

/** The one place the session cookie's attributes are decided (HttpOnly, SameSite=Strict, Secure on https). */
export function setSessionCookie(req: Request, res: Response, token: string, publicUrl: string | null): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: isHttpsForBrowser(req, publicUrl),
    path: '/',
    maxAge: SESSION_LIFETIME_SECONDS * 1000,
  });
}

export function clearSessionCookie(req: Request, res: Response, publicUrl: string | null): void {
  res.cookie(SESSION_COOKIE, '', {
    httpOnly: true,
    sameSite: 'strict',
    secure: isHttpsForBrowser(req, publicUrl),
    path: '/',
    maxAge: 0,
  });
}
