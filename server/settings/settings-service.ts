import path from 'node:path';
import { hashPassword } from '../auth/passwords.js';
import { ConfigError, loadConfig, type Config, type ConfigField } from '../config.js';
import { ConflictError } from '../app-errors.js';
import { errorMessage } from '../error-message.js';
import type { Logger } from '../log.js';
import { CONFIG_FILE_NAME, updateConfigFile } from './config-file.js';
import type { LiveDms } from './dms-change.js';
import { createNotifyTargetSettings, type NotifyTargetSettings, type SendTest } from './notify-target-settings.js';
import type { SettingName, SettingsPatch } from './settings-input.js';

/** What the settings page shows: never a secret's value, only whether it is set. */
export interface SettingsView {
  dms_url: string | null;
  dms_token_set: boolean;
  admin_user: string | null;
  admin_password_set: boolean;
  api_token_set: boolean;
  webhook_dry_run: boolean;
  /** Polling interval in minutes (0 = off); null = automatic: every 5 minutes without an API token. */
  poll_minutes: number | null;
  /** True while config.yml holds a value the running service has not picked up (e.g. a new dms URL). */
  restart_required: boolean;
  /** Settings whose environment variable wins over config.yml, so changing them here has no effect. */
  overridden_by_env: SettingName[];
  config_file: string;
  /** Names of the notify targets in use (their URLs and credentials are never returned). */
  notify_targets: string[];
}

export interface SettingsUpdate {
  ok: true;
  restart_required: boolean;
  /** The running service now uses the new dms URL or token (no restart needed for them). */
  dms_switched: boolean;
  overridden_by_env: SettingName[];
  /** The admin name or password changed live: every session signed before is no longer valid. */
  credentials_changed: boolean;
}

export interface SettingsService {
  get(): SettingsView;
  /** The notify targets: list, add, change, remove and a test send. */
  notifyTargets: NotifyTargetSettings;
  /**
   * `confirmPassword` throws unless `current_password` is right; it is asked only for the admin password and the
   * API token. A new dms URL or token is applied to the running service (with `liveDms`) before this resolves.
   */
  update(
    patch: SettingsPatch,
    confirmPassword?: (currentPassword: string | undefined) => void,
  ): Promise<SettingsUpdate>;
}

// Auth and the webhook read the live config on every request, so theirs apply at once; the dms connection is
// switched by `liveDms` (without it, e.g. in a test of this file alone, a dms change waits for a restart).
const SETTINGS: Record<SettingName, { fields: ConfigField[]; live: boolean }> = {
  dms_url: { fields: ['dmsUrl'], live: false },
  dms_token: { fields: ['dmsToken'], live: false },
  admin_user: { fields: ['adminUser'], live: true },
  admin_password: { fields: ['adminPassword', 'adminPasswordHash'], live: true },
  api_token: { fields: ['apiToken'], live: true },
  webhook_dry_run: { fields: ['webhookDryRun'], live: true },
  poll_minutes: { fields: ['pollMinutes'], live: true },
};
const NAMES = Object.keys(SETTINGS) as SettingName[];
/** Changes that would let a stolen session keep or widen its access. */
const NEED_CURRENT_PASSWORD: SettingName[] = ['admin_password', 'api_token'];
const COMPARED: ConfigField[] = NAMES.flatMap((name) => SETTINGS[name].fields);

/** Reads and changes the settings kept in `<dataDir>/config.yml`, applying what it can to the live `config`. */
export function createSettingsService(
  config: Config,
  logger: Logger,
  liveDms?: LiveDms,
  sendTest: SendTest = () => Promise.reject(new Error('this service sends no notifications')),
): SettingsService {
  const file = path.join(config.dataDir, CONFIG_FILE_NAME);
  const overridden = (name: SettingName) =>
    SETTINGS[name].fields.some((f) => config.sources?.[f] === 'env' || config.sources?.[f] === 'override');

  /** The values the next start would use: config.yml and defaults, unless something above the file wins. */
  const nextStart = (): Config => {
    let fromFile: Config;
    try {
      fromFile = loadConfig({ env: {}, overrides: { dataDir: config.dataDir } });
    } catch (err) {
      if (err instanceof ConfigError) throw new ConflictError(`${file}: ${err.message}`);
      throw err;
    }
    const next = { ...fromFile };
    for (const name of NAMES) {
      if (!overridden(name)) continue;
      for (const f of SETTINGS[name].fields) Object.assign(next, { [f]: config[f] });
    }
    return next;
  };

  const restartRequired = (next: Config) => COMPARED.some((f) => next[f] !== config[f]);

  /** The dms URL and token the next start would use, applied now when they differ from the running ones. */
  async function switchDms(live: LiveDms): Promise<boolean> {
    const next = nextStart();
    if (next.dmsUrl === config.dmsUrl && next.dmsToken === config.dmsToken) return false;
    try {
      await live.switchTo({ url: next.dmsUrl, token: next.dmsToken });
    } catch (err) {
      // Saved, not applied: the page says a restart is needed (restart_required stays true).
      logger.error(`settings: could not switch to the new dms: ${errorMessage(err)}`);
      return false;
    }
    config.dmsUrl = next.dmsUrl;
    config.dmsToken = next.dmsToken;
    return true;
  }

  return {
    notifyTargets: createNotifyTargetSettings(config, logger, sendTest),
    get() {
      const next = nextStart();
      return {
        dms_url: next.dmsUrl,
        dms_token_set: Boolean(next.dmsToken),
        admin_user: next.adminUser,
        admin_password_set: Boolean(next.adminPassword || next.adminPasswordHash),
        api_token_set: Boolean(next.apiToken),
        webhook_dry_run: next.webhookDryRun,
        poll_minutes: next.pollMinutes,
        restart_required: restartRequired(next),
        overridden_by_env: NAMES.filter(overridden),
        config_file: file,
        notify_targets: Object.keys(config.notifyTargets ?? {}),
      };
    },

    async update(patch, confirmPassword) {
      const names = NAMES.filter((n) => patch[n] !== undefined);
      const dmsNamed = names.includes('dms_url') || names.includes('dms_token');
      if (patch.admin_password !== undefined && overridden('admin_password')) {
        // A hash in config.yml next to SVC_ADMIN_PASSWORD would make the next start fail.
        throw new ConflictError(
          'The admin password comes from SVC_ADMIN_PASSWORD or SVC_ADMIN_PASSWORD_HASH in the environment; change it there.',
        );
      }
      if (NEED_CURRENT_PASSWORD.some((n) => names.includes(n))) confirmPassword?.(patch.current_password);
      const busy = dmsNamed ? liveDms?.busy() : null;
      if (busy) throw new ConflictError(busy);
      const hash = patch.admin_password === undefined ? undefined : hashPassword(patch.admin_password);
      const changes: Record<string, string | boolean | null> = {};
      for (const name of names) {
        if (name === 'admin_password') Object.assign(changes, { admin_password: null, admin_password_hash: hash });
        else if (name === 'poll_minutes')
          changes[name] = patch.poll_minutes == null ? null : String(patch.poll_minutes);
        else changes[name] = patch[name] ?? null;
      }
      if (names.includes('dms_url') && !names.includes('dms_token') && patch.dms_url !== nextStart().dmsUrl) {
        // The stored token was issued by the old dms: sending it to a new address would hand it to whoever is there.
        if (overridden('dms_token')) {
          throw new ConflictError(
            'The dms token comes from SVC_DMS_TOKEN in the environment; change the dms URL there too, or give a new token here.',
          );
        }
        changes.dms_token = null;
      }
      updateConfigFile(config.dataDir, changes);

      const previousCredential = `${config.adminUser}\u0000${config.adminPasswordHash ?? config.adminPassword}`;
      for (const name of names.filter((n) => SETTINGS[n].live && !overridden(n))) {
        if (name === 'admin_user') config.adminUser = patch.admin_user ?? config.adminUser;
        if (name === 'admin_password') Object.assign(config, { adminPassword: null, adminPasswordHash: hash });
        if (name === 'api_token') config.apiToken = patch.api_token ?? null;
        if (name === 'webhook_dry_run') config.webhookDryRun = patch.webhook_dry_run ?? config.webhookDryRun;
        if (name === 'poll_minutes') config.pollMinutes = patch.poll_minutes ?? null;
        for (const f of SETTINGS[name].fields) if (config.sources) config.sources[f] = 'file';
      }

      const dmsSwitched = liveDms ? await switchDms(liveDms) : false;
      const restart = restartRequired(nextStart());
      const ignored = names.filter(overridden);
      logger.info(
        `settings saved to ${file}: ${names.join(', ')}` +
          ('dms_token' in changes && !names.includes('dms_token')
            ? ' (the dms token was removed: it belonged to the old dms URL)'
            : '') +
          (dmsSwitched ? ` (the service now uses ${config.dmsUrl ?? 'the demo dms'})` : '') +
          (restart ? ' (restart the service to apply the dms settings)' : '') +
          (ignored.length ? `; the environment still wins for ${ignored.join(', ')}` : ''),
      );
      return {
        ok: true,
        restart_required: restart,
        dms_switched: dmsSwitched,
        overridden_by_env: ignored,
        credentials_changed:
          `${config.adminUser}\u0000${config.adminPasswordHash ?? config.adminPassword}` !== previousCredential,
      };
    },
  };
}
