import type { Config } from '../config.js';
import { ForbiddenError, TooManyRequestsError } from '../errors.js';
import crypto from 'node:crypto';
import { safeEqual } from './constant-time.js';
import { createLoginThrottle, type LoginThrottle } from './login-throttle.js';
import { verifyPassword } from './passwords.js';
import { createSessionSigner, type Session } from './sessions.js';

export interface AuthService {
  readonly adminConfigured: boolean;
  readonly apiTokenConfigured: boolean;
  /** Checks the admin credentials (throttled per address) and returns a signed session token. */
  login(username: string, password: string, address: string): string;
  /** Signs a session for the admin without a password (the desktop window's one-time sign-in). */
  issueSession(): string;
  verifySession(token: string | undefined): Session | null;
  verifyApiToken(token: string | undefined): boolean;
}

type AuthConfig = Pick<Config, 'adminUser' | 'adminPassword' | 'adminPasswordHash' | 'apiToken'>;

/**
 * `config` is read on every call, not captured: the settings page changes the admin account and the
 * API token in place on the live config, and they take effect without a restart.
 */
export function createAuthService(config: AuthConfig, secret: string, throttle: LoginThrottle = createLoginThrottle()): AuthService {
  const signer = createSessionSigner(secret);
  const isAdminConfigured = () => Boolean(config.adminUser && (config.adminPassword || config.adminPasswordHash));

  // Sessions carry this fingerprint: changing the admin's name or password signs every other session out.
  const credential = () =>
    crypto
      .createHmac('sha256', secret)
      .update(`${config.adminUser ?? ''}\u0000${config.adminPasswordHash ?? config.adminPassword ?? ''}`)
      .digest('base64url')
      .slice(0, 22);

  const passwordMatches = (password: string) =>
    config.adminPasswordHash ? verifyPassword(password, config.adminPasswordHash) : safeEqual(password, config.adminPassword ?? '');

  return {
    get adminConfigured() {
      return isAdminConfigured();
    },
    get apiTokenConfigured() {
      return Boolean(config.apiToken);
    },
    login(username, password, address) {
      const wait = throttle.retryAfter(address);
      if (wait > 0) throw new TooManyRequestsError(`Too many failed sign-ins. Try again in ${wait} seconds.`, wait);
      const adminUser = config.adminUser;
      if (!isAdminConfigured() || !adminUser) {
        throw new ForbiddenError('No admin account is configured: set SVC_ADMIN_USER and SVC_ADMIN_PASSWORD.');
      }
      // Evaluate both checks every time so the response time does not reveal which one failed.
      const userOk = safeEqual(username, adminUser);
      const passwordOk = passwordMatches(password);
      if (!userOk || !passwordOk) {
        throttle.recordFailure(address);
        throw new ForbiddenError('Wrong username or password.');
      }
      throttle.recordSuccess(address);
      return signer.sign(adminUser, credential());
    },
    issueSession() {
      return signer.sign(config.adminUser ?? 'admin', credential());
    },
    verifySession(token) {
      if (!token) return null;
      const session = signer.verify(token);
      if (!session || !safeEqual(session.credential, credential())) return null;
      return session;
    },
    verifyApiToken(token) {
      return Boolean(config.apiToken && token && safeEqual(token, config.apiToken));
    },
  };
}
