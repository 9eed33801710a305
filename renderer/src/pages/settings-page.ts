// Connection and account settings (stored by the service in its data dir). Secrets are never shown:
// an empty secret field keeps the stored value.
import { errorMessage, request } from '../api.js';
import { h, say } from '../dom.js';
import type { Settings } from '../types.js';

function field(id: string, label: string, input: HTMLInputElement, hint?: string): HTMLElement {
  input.id = `settings-${id}`;
  input.name = id;
  return h('div', { class: 'field' }, h('label', { attrs: { for: input.id } }, label), input, hint ? h('p', { class: 'muted small' }, hint) : null);
}

export function renderSettingsPage(main: HTMLElement): () => void {
  const section = h('section', { class: 'settings-page' }, h('h1', {}, 'Settings'));
  main.append(section);
  const status = h('p', { class: 'status', attrs: { role: 'alert', hidden: true, id: 'settings-status' } });

  request<Settings>('/api/ui/settings')
    .then((s) => {
      const dmsUrl = h('input', { attrs: { type: 'url', value: s.dms_url, placeholder: 'https://paperless.example.lan' } });
      const secret = (set: boolean) => h('input', { attrs: { type: 'password', autocomplete: 'new-password', placeholder: set ? 'set — leave empty to keep' : 'not set' } });
      const dmsToken = secret(s.dms_token_set);
      const adminUser = h('input', { attrs: { value: s.admin_user, autocomplete: 'username' } });
      const adminPassword = secret(s.admin_password_set);
      const apiToken = secret(s.api_token_set);
      const dry = h('input', { attrs: { type: 'checkbox', role: 'switch', id: 'settings-webhook_dry_run' } });
      dry.checked = s.webhook_dry_run;
      const restart = h('p', { class: 'banner', attrs: { hidden: !s.restart_required, role: 'note' } }, 'Restart the service to apply all saved settings.');
      const form = h(
        'form',
        { class: 'settings' },
        h('fieldset', {}, h('legend', {}, 'Document management system'), field('dms_url', 'dms URL', dmsUrl, 'Empty: the built-in demo dms.'), field('dms_token', 'dms API token', dmsToken)),
        h('fieldset', {}, h('legend', {}, 'Admin sign-in'), field('admin_user', 'User name', adminUser), field('admin_password', 'New password', adminPassword)),
        h(
          'fieldset',
          {},
          h('legend', {}, 'Webhook'),
          field('api_token', 'API token (bearer for the webhook and scripts)', apiToken),
          h('label', { class: 'switch', attrs: { for: 'settings-webhook_dry_run' } }, dry, h('span', {}, 'Webhook runs are dry runs')),
        ),
        status,
        restart,
        h('div', { class: 'buttons' }, h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Save settings')),
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        const body: Record<string, string | boolean> = {};
        if (dmsUrl.value.trim() !== s.dms_url) body.dms_url = dmsUrl.value.trim();
        if (adminUser.value.trim() !== s.admin_user) body.admin_user = adminUser.value.trim();
        if (dry.checked !== s.webhook_dry_run) body.webhook_dry_run = dry.checked;
        for (const [name, input] of [['dms_token', dmsToken], ['admin_password', adminPassword], ['api_token', apiToken]] as const) {
          if (input.value) body[name] = input.value;
        }
        if (Object.keys(body).length === 0) return say(status, 'Nothing changed.', 'info');
        request<{ ok: boolean; restart_required?: boolean }>('/api/ui/settings', { method: 'PUT', json: body })
          .then((r) => {
            Object.assign(s, body);
            for (const input of [dmsToken, adminPassword, apiToken]) input.value = '';
            restart.hidden = !r.restart_required;
            say(status, 'Settings saved.', 'ok');
          })
          .catch((err: unknown) => say(status, errorMessage(err), 'error'));
      });
      section.append(form);
    })
    .catch((err: unknown) => section.append(h('p', { class: 'error-box', attrs: { role: 'alert' } }, `Cannot read the settings: ${errorMessage(err)}`)));
  return () => undefined;
}
