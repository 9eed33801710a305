import type { Request, Response } from 'express';
import { SESSION_COOKIE, SESSION_LIFETIME_SECONDS } from '../auth/sessions.js';

/** The one place the session cookie's attributes are decided (HttpOnly, SameSite=Strict, Secure on https). */
export function setSessionCookie(req: Request, res: Response, token: string): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    path: '/',
    maxAge: SESSION_LIFETIME_SECONDS * 1000,
  });
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.cookie(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', secure: req.secure, path: '/', maxAge: 0 });
}
