import type { Config } from '../config.js';
import { ForbiddenError, TooManyRequestsError } from '../app-errors.js';
import crypto from 'node:crypto';
import { safeEqual } from './constant-time.js';
import { createLoginThrottle, type LoginThrottle, type ThrottleSource } from './login-throttle.js';
import { openSessionRevocations, type SessionRevocations } from './session-revocations.js';
import { verifyPassword, verifyPasswordSync } from './passwords.js';
import { createSessionSigner, type Session } from './sessions.js';

export interface AuthService {
  readonly adminConfigured: boolean;
  readonly apiTokenConfigured: boolean;
  /** Checks the admin credentials (throttled per source and account) and returns a signed session token. */
  login(username: string, password: string, source: ThrottleSource): Promise<string>;
  /**
   * For changes that need the current password (admin password, API token): throws 403 when it is wrong
   * (counted like a failed sign-in) or 429 while throttled; passes when no admin password is configured yet.
   */
  confirmPassword(password: string | undefined, source: ThrottleSource): void;
  /** Sign-out: the session stays invalid until it would have expired, across restarts. */
  endSession(token: string | undefined): void;
  /** Signs a session for the admin without a password (the desktop window's one-time sign-in). */
  issueSession(): string;
  verifySession(token: string | undefined): Session | null;
  verifyApiToken(token: string | undefined): boolean;
  /** The webhook's token: SVC_WEBHOOK_TOKEN, or SVC_API_TOKEN (which may do everything the webhook may). */
  verifyWebhookToken(token: string | undefined): boolean;
  readonly webhookTokenConfigured: boolean;
}

export interface AuthServiceOptions {
  throttle?: LoginThrottle;
  revocations?: SessionRevocations;
}

type AuthConfig = Pick<Config, 'adminUser' | 'adminPassword' | 'adminPasswordHash' | 'apiToken' | 'webhookToken'>;

/**
 * `config` is read on every call, not captured: the settings page changes the admin account and the
 * API token in place on the live config, and they take effect without a restart.
 */
export function createAuthService(config: AuthConfig, secret: string, options: AuthServiceOptions = {}): AuthService {
  const throttle = options.throttle ?? createLoginThrottle();
  const revocations = options.revocations ?? openSessionRevocations(null);
  const signer = createSessionSigner(secret);
  const isAdminConfigured = () => Boolean(config.adminUser && (config.adminPassword || config.adminPasswordHash));

  // Sessions carry this fingerprint: changing the admin's name or password signs every other session out.
  const credential = () =>
    crypto
      .createHmac('sha256', secret)
      .update(`${config.adminUser ?? ''}\u0000${config.adminPasswordHash ?? config.adminPassword ?? ''}`)
      .digest('base64url')
      .slice(0, 22);

  const tokenMatches = (token: string | undefined, expected: string | null) =>
    Boolean(expected && token && safeEqual(token, expected));

  const throwIfThrottled = (source: ThrottleSource, account: string) => {
    const wait = throttle.retryAfter(source, account);
    if (wait > 0) throw new TooManyRequestsError(`Too many failed sign-ins. Try again in ${wait} seconds.`, wait);
  };

  const passwordMatches = async (password: string) =>
    config.adminPasswordHash
      ? verifyPassword(password, config.adminPasswordHash)
      : safeEqual(password, config.adminPassword ?? '');
  const passwordMatchesSync = (password: string) =>
    config.adminPasswordHash
      ? verifyPasswordSync(password, config.adminPasswordHash)
      : safeEqual(password, config.adminPassword ?? '');

  return {
    get adminConfigured() {
      return isAdminConfigured();
    },
    get apiTokenConfigured() {
      return Boolean(config.apiToken);
    },
    async login(username, password, source) {
      throwIfThrottled(source, username);
      const adminUser = config.adminUser;
      if (!isAdminConfigured() || !adminUser) {
        throw new ForbiddenError('No admin account is configured: set SVC_ADMIN_USER and SVC_ADMIN_PASSWORD.');
      }
      // Counted as failed before the hash runs, so parallel requests cannot all pass the throttle first.
      const attempt = throttle.begin(source, username);
      // Evaluate both checks every time so the response time does not reveal which one failed.
      const userOk = safeEqual(username, adminUser);
      const passwordOk = await passwordMatches(password);
      if (!userOk || !passwordOk) throw new ForbiddenError('Wrong username or password.');
      attempt.succeeded();
      return signer.sign(adminUser, credential());
    },
    confirmPassword(password, source) {
      if (!config.adminPassword && !config.adminPasswordHash) return;
      const account = config.adminUser ?? '';
      throwIfThrottled(source, account);
      if (typeof password !== 'string' || password === '' || !passwordMatchesSync(password)) {
        if (typeof password === 'string' && password !== '') throttle.recordFailure(source, account);
        throw new ForbiddenError(
          'Enter your current password to change the admin password or a token (current_password).',
        );
      }
    },
    endSession(token) {
      const session = token ? signer.verify(token) : null;
      if (session) revocations.revoke(session.id, session.expiresAt);
    },
    issueSession() {
      return signer.sign(config.adminUser ?? 'admin', credential());
    },
    verifySession(token) {
      if (!token) return null;
      const session = signer.verify(token);
      if (
        !session ||
        !safeEqual(session.credential, credential()) ||
        revocations.isRevoked(session.id, session.issuedAt)
      )
        return null;
      return session;
    },
    verifyApiToken: (token) => tokenMatches(token, config.apiToken),
    // Both comparisons always run, so timing does not say which token was tried.
    verifyWebhookToken: (token) =>
      [tokenMatches(token, config.webhookToken), tokenMatches(token, config.apiToken)].includes(true),
    get webhookTokenConfigured() {
      return Boolean(config.webhookToken || config.apiToken);
    },
  };
}
