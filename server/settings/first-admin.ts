import type { AuthService } from '../auth/auth-service.js';
import { createSetupCode, SETUP_CODE_FILE, type SetupCode } from '../auth/setup-code.js';
import { BadRequestError, ConflictError, ForbiddenError } from '../app-errors.js';
import { parseSettingsPatch } from './settings-input.js';
import type { SettingsService } from './settings-service.js';

/** Whether the one-time setup page applies (no admin yet). `allowed` is kept for older pages: the code decides now. */
export interface FirstStartState {
  needed: boolean;
  allowed: boolean;
}

/** The first start's one-time setup (no admin yet; the setup code from the machine proves presence). */
export interface FirstStart {
  state(): FirstStartState;
  /** The current setup code (for the start log and the desktop window), or null when no setup is needed. */
  code(): string | null;
  /** The file that holds the code while it is needed. */
  readonly codeFile: string;
  createAdmin(body: unknown): Promise<{ username: string; session: string }>;
}

export function createFirstStart(deps: { auth: AuthService; settings: SettingsService; dataDir: string }): FirstStart {
  const setupCode = createSetupCode(deps.dataDir, !deps.auth.adminConfigured);
  // An admin set some other way (the settings page, from the desktop window's password-free session) spends it too.
  const current = () => {
    if (deps.auth.adminConfigured && setupCode.current() !== null) setupCode.discard();
    return setupCode.current();
  };
  return {
    state: () => {
      const needed = !deps.auth.adminConfigured;
      return { needed, allowed: needed };
    },
    code: current,
    codeFile: setupCode.file,
    createAdmin: (body) => createFirstAdmin({ ...deps, setupCode }, body),
  };
}

const WHERE_THE_CODE_IS =
  `The setup code is in the file ${SETUP_CODE_FILE} in the service's data directory and in its start log ` +
  '(the link printed there fills it in); the desktop app fills it in by itself.';

/**
 * Creates the admin account on a fresh install, for whoever presents the setup code, and returns a session for it.
 * Stored like the settings page stores it: the name and an scrypt hash in the data dir's config.yml.
 */
export async function createFirstAdmin(
  deps: { auth: AuthService; settings: SettingsService; setupCode: SetupCode },
  body: unknown,
): Promise<{ username: string; session: string }> {
  if (deps.auth.adminConfigured)
    throw new ConflictError('An admin account already exists; sign in with it (or change it on the settings page).');
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (!deps.setupCode.matches(input.code)) {
    throw new ForbiddenError(
      `${input.code === undefined || input.code === '' ? 'Creating the admin account needs the setup code.' : 'That setup code is not right.'} ${WHERE_THE_CODE_IS}`,
    );
  }
  if (typeof input.username !== 'string' || typeof input.password !== 'string') {
    throw new BadRequestError('Send JSON {"code": "...", "username": "...", "password": "..."}.');
  }
  const patch = parseSettingsPatch({ admin_user: input.username, admin_password: input.password });
  await deps.settings.update(patch);
  if (!deps.auth.adminConfigured) {
    throw new ConflictError(
      'The account was stored in config.yml, but an environment variable (SVC_ADMIN_USER or SVC_ADMIN_PASSWORD*) overrides it; set the account there.',
    );
  }
  deps.setupCode.discard();
  return { username: patch.admin_user ?? input.username, session: deps.auth.issueSession() };
}
