// Connection and account settings (stored by the service in config.yml in its data dir). Secrets are never
// shown: an empty secret field keeps the stored value. Settings fixed by an environment variable are read-only.
import { errorMessage, request } from '../api.js';
import { h, say } from '../dom.js';
import type { Settings } from '../types.js';
import { dmsConnectionStatus } from './dms-connection-status.js';
import { updateShell } from './shell.js';
import { refreshConfig } from '../session.js';
import { connectionTest, describeReport, testConnection } from '../components/connection-test.js';
import { notifyTargetsSection } from '../components/notify-targets.js';

const ENV_NAMES: Record<string, string> = {
  dms_url: 'SVC_DMS_URL',
  dms_token: 'SVC_DMS_TOKEN',
  admin_user: 'SVC_ADMIN_USER',
  admin_password: 'SVC_ADMIN_PASSWORD',
  api_token: 'SVC_API_TOKEN',
  webhook_dry_run: 'SVC_WEBHOOK_DRY_RUN',
  poll_minutes: 'SVC_POLL_MINUTES',
};

function field(name: string, label: string, input: HTMLInputElement, fixed: boolean, hint?: string): HTMLElement {
  input.id = `settings-${name}`;
  input.name = name;
  input.disabled = fixed;
  const note = fixed ? `Set by the environment variable ${ENV_NAMES[name]}; change it there.` : hint;
  return h(
    'div',
    { class: 'field' },
    h('label', { attrs: { for: input.id } }, label),
    input,
    note ? h('p', { class: 'muted small' }, note) : null,
  );
}

function renderForm(section: HTMLElement, s: Settings): void {
  const fixed = (name: string) => (s.overridden_by_env as readonly string[]).includes(name);
  const status = h('p', { class: 'status', attrs: { role: 'alert', hidden: true, id: 'settings-status' } });
  const dmsUrl = h('input', {
    attrs: { type: 'url', value: s.dms_url ?? '', placeholder: 'https://paperless.example.lan' },
  });
  const secret = () => h('input', { attrs: { type: 'password', autocomplete: 'new-password' } });
  const dmsToken = secret();
  const adminUser = h('input', { attrs: { value: s.admin_user ?? '', autocomplete: 'username' } });
  const adminPassword = secret();
  const apiToken = secret();
  /** Whether each secret is stored, shown in its empty field (again after every save). */
  const showSecrets = (): void => {
    for (const [input, set] of [
      [dmsToken, s.dms_token_set],
      [adminPassword, s.admin_password_set],
      [apiToken, s.api_token_set],
    ] as const)
      input.placeholder = set ? 'set — leave empty to keep' : 'not set';
  };
  showSecrets();
  const currentPassword = h('input', { attrs: { type: 'password', autocomplete: 'current-password' } });
  const dry = h('input', {
    attrs: { type: 'checkbox', role: 'switch', id: 'settings-webhook_dry_run', disabled: fixed('webhook_dry_run') },
  });
  dry.checked = s.webhook_dry_run;
  const poll = h('input', {
    attrs: { type: 'number', min: 0, max: 1440, step: 1, value: s.poll_minutes ?? '', placeholder: 'automatic' },
  });
  // Polling finds documents by their `modified` date, at its interval; the webhook reports each change at once.
  const pollingNote = h(
    'p',
    { class: 'banner small', attrs: { id: 'settings-polling-note', role: 'note' } },
    'Polling finds changed documents by their modified date, so a change waits up to the polling interval. A Paperless workflow with a webhook action to this service (docs/jobs-and-webhook.md) reports each change at once.',
  );
  const showPollingNote = () => {
    const minutes = poll.value.trim() === '' ? null : Number(poll.value);
    pollingNote.hidden = !(minutes === null ? !s.api_token_set : minutes > 0);
  };
  poll.addEventListener('input', showPollingNote);
  showPollingNote();
  const restart = h(
    'p',
    { class: 'banner', attrs: { hidden: !s.restart_required, role: 'note', id: 'settings-restart' } },
    'Saved, but the running service could not apply all of it (the service log says why): quit and start the desktop app, or restart the service, to apply it.',
  );
  // Shown after a new dms URL failed its test: saves what was refused, untested.
  const saveAnyway = h(
    'button',
    { attrs: { type: 'button', id: 'settings-save-anyway', hidden: true } },
    'Save anyway',
  );
  let refused: Record<string, unknown> | null = null;
  saveAnyway.addEventListener('click', () => {
    saveAnyway.hidden = true;
    if (refused) submit(refused);
    refused = null;
  });
  dmsUrl.addEventListener('input', () => (saveAnyway.hidden = true));
  // What the running service uses, replaced after a save that switched the dms.
  let connected = dmsConnectionStatus();
  const testArea = connectionTest(() => ({ url: dmsUrl.value.trim(), token: dmsToken.value }));
  const form = h(
    'form',
    { class: 'settings' },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Document management system'),
      field('dms_url', 'dms URL', dmsUrl, fixed('dms_url'), 'Empty: the built-in demo dms.'),
      field('dms_token', 'dms API token', dmsToken, fixed('dms_token')),
      h('h3', {}, 'Connected now (what the running service uses)'),
      connected,
      testArea,
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Admin sign-in'),
      field('admin_user', 'User name', adminUser, fixed('admin_user')),
      field('admin_password', 'New password', adminPassword, fixed('admin_password')),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Webhook and scripts'),
      field('api_token', 'API token (bearer for the webhook and scripts)', apiToken, fixed('api_token')),
      h(
        'label',
        { class: 'switch', attrs: { for: dry.id } },
        dry,
        h('span', {}, 'Webhook runs are dry runs (for trying a new setup)'),
      ),
      field(
        'poll_minutes',
        'Poll the dms every … minutes',
        poll,
        fixed('poll_minutes'),
        'For when Paperless cannot reach this service (laptop, firewall, Paperless in the cloud). 0 = off; empty = every 5 minutes when no API token is set, otherwise off.',
      ),
      pollingNote,
    ),
    field(
      'current_password',
      'Current password',
      currentPassword,
      false,
      'Needed to change the password or the API token. A new dms URL without a new token removes the stored token.',
    ),
    status,
    saveAnyway,
    restart,
    s.config_file ? h('p', { class: 'muted small' }, `Stored in ${s.config_file}.`) : null,
    h('div', { class: 'buttons' }, h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Save settings')),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const body: Record<string, string | number | boolean | null> = {};
    const url = dmsUrl.value.trim();
    if (!fixed('dms_url') && url !== (s.dms_url ?? '')) body.dms_url = url === '' ? null : url;
    if (!fixed('admin_user') && adminUser.value.trim() !== (s.admin_user ?? ''))
      body.admin_user = adminUser.value.trim();
    if (!fixed('webhook_dry_run') && dry.checked !== s.webhook_dry_run) body.webhook_dry_run = dry.checked;
    const minutes = poll.value.trim() === '' ? null : Number(poll.value);
    if (!fixed('poll_minutes') && minutes !== s.poll_minutes) body.poll_minutes = minutes;
    for (const [name, input] of [
      ['dms_token', dmsToken],
      ['admin_password', adminPassword],
      ['api_token', apiToken],
    ] as const) {
      if (!fixed(name) && input.value) body[name] = input.value;
    }
    if (Object.keys(body).length === 0) return say(status, 'Nothing changed.', 'info');
    if (currentPassword.value) body.current_password = currentPassword.value;
    saveAnyway.hidden = true;
    void whyNotToSave(body).then((why) => {
      if (why === null) return submit(body);
      refused = body;
      say(status, `Not saved: ${why} Correct the URL, or save it anyway.`, 'error');
      saveAnyway.hidden = false;
    });
  });

  // A new dms URL is tried before it is saved: one that does not answer is saved only by "Save anyway".
  async function whyNotToSave(body: Record<string, unknown>): Promise<string | null> {
    if (typeof body.dms_url !== 'string') return null;
    say(status, `Testing ${body.dms_url} before saving…`, 'info');
    const report = await testConnection(body.dms_url, dmsToken.value).catch(() => null);
    return !report || report.ok ? null : describeReport(report)[0];
  }

  function submit(body: Record<string, unknown>): void {
    request<{ ok: boolean; restart_required?: boolean; dms_switched?: boolean }>('/api/ui/settings', {
      method: 'PUT',
      json: body,
    })
      .then((r) => {
        for (const input of [dmsToken, adminPassword, apiToken, currentPassword]) input.value = '';
        restart.hidden = !r.restart_required;
        if (r.dms_switched) {
          // "Connected now", the header badge and the demo banner follow the switch at once.
          const fresh = dmsConnectionStatus();
          connected.replaceWith(fresh);
          connected = fresh;
          void refreshConfig().then(updateShell, () => undefined);
        }
        // "Settings saved" appears together with what is now stored, never before it.
        const saved = () =>
          say(status, r.dms_switched ? 'Settings saved. The service now uses the new dms.' : 'Settings saved.', 'ok');
        return request<Settings>('/api/ui/settings').then((fresh) => {
          Object.assign(s, fresh);
          showSecrets();
          showPollingNote(); // "automatic" polling depends on whether an API token is set
          saved();
        }, saved);
      })
      .catch((err: unknown) => say(status, errorMessage(err), 'error'));
  }
  section.append(
    form,
    notifyTargetsSection(),
    h(
      'section',
      { class: 'service-log' },
      h('h2', {}, 'Service log'),
      h(
        'p',
        { class: 'muted small' },
        'What the service did and why something failed ("the service log has the details"). The desktop app writes it to a file in its data folder (File → Open log); ',
        h(
          'a',
          { attrs: { href: '/api/ui/log', download: 'dms-rules-service.log', id: 'download-log' } },
          'download the service log',
        ),
        '.',
      ),
    ),
  );
}

export function renderSettingsPage(main: HTMLElement): () => void {
  const section = h('section', { class: 'settings-page' }, h('h1', {}, 'Settings'));
  main.append(section);
  request<Settings>('/api/ui/settings')
    .then((s) => renderForm(section, s))
    .catch((err: unknown) =>
      section.append(
        h('p', { class: 'error-box', attrs: { role: 'alert' } }, `Cannot read the settings: ${errorMessage(err)}`),
      ),
    );
  return () => undefined;
}
