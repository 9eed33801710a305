import type { AuthService } from '../auth/auth-service.js';
import { isSameMachineRequest } from '../auth/same-machine.js';
import { BadRequestError, ConflictError, ForbiddenError } from '../errors.js';
import { parseSettingsPatch } from './settings-input.js';
import type { SettingsService } from './settings-service.js';

export interface RequestOrigin {
  remoteAddress: string | undefined;
  host: string | undefined;
  /** The request carries proxy forwarding headers (X-Forwarded-For, Forwarded, …). */
  forwarded?: boolean;
}

/** Whether the one-time setup page applies (no admin yet) and whether this request may use it. */
export interface FirstStartState {
  needed: boolean;
  allowed: boolean;
}

/** The first start's one-time setup (no admin yet, this machine only). */
export interface FirstStart {
  state(origin: RequestOrigin): FirstStartState;
  createAdmin(body: unknown, origin: RequestOrigin): Promise<{ username: string; session: string }>;
}

export function createFirstStart(deps: { auth: AuthService; settings: SettingsService }): FirstStart {
  return {
    state: (origin) => firstStartState(deps.auth, origin),
    createAdmin: (body, origin) => createFirstAdmin(deps, body, origin),
  };
}

export function firstStartState(auth: AuthService, origin: RequestOrigin): FirstStartState {
  const needed = !auth.adminConfigured;
  return { needed, allowed: needed && isSameMachineRequest(origin) };
}

/**
 * Creates the admin account on a fresh install, from this machine only, and returns a session for it.
 * Stored like the settings page stores it: the name and an scrypt hash in the data dir's config.yml.
 */
export async function createFirstAdmin(
  deps: { auth: AuthService; settings: SettingsService },
  body: unknown,
  origin: RequestOrigin,
): Promise<{ username: string; session: string }> {
  if (deps.auth.adminConfigured)
    throw new ConflictError('An admin account already exists; sign in with it (or change it on the settings page).');
  if (!isSameMachineRequest(origin)) {
    throw new ForbiddenError(
      'The admin account can only be created from the machine the service runs on: open http://localhost:<port>/ there.',
    );
  }
  const input = (body ?? {}) as Record<string, unknown>;
  if (typeof input.username !== 'string' || typeof input.password !== 'string') {
    throw new BadRequestError('Send JSON {"username": "...", "password": "..."}.');
  }
  const patch = parseSettingsPatch({ admin_user: input.username, admin_password: input.password });
  await deps.settings.update(patch);
  if (!deps.auth.adminConfigured) {
    throw new ConflictError(
      'The account was stored in config.yml, but an environment variable (SVC_ADMIN_USER or SVC_ADMIN_PASSWORD*) overrides it; set the account there.',
    );
  }
  return { username: patch.admin_user ?? input.username, session: deps.auth.issueSession() };
}
