// First start: no admin account yet. Whoever shows the setup code (only readable at the machine) creates it.
import { errorMessage } from '../api.js';
import { h, say } from '../dom.js';
import { createAdmin, handedSetupCode } from '../session.js';

export function renderSetup(root: HTMLElement, onCreated: () => void): void {
  const code = h('input', {
    attrs: {
      id: 'setup-code',
      name: 'code',
      autocomplete: 'off',
      required: true,
      spellcheck: 'false',
      value: handedSetupCode(),
    },
  });
  const user = h('input', {
    attrs: { id: 'setup-user', name: 'username', autocomplete: 'username', required: true, value: 'admin' },
  });
  const pass = h('input', {
    attrs: {
      id: 'setup-password',
      name: 'password',
      type: 'password',
      autocomplete: 'new-password',
      required: true,
      minlength: 8,
    },
  });
  const again = h('input', {
    attrs: { id: 'setup-password-again', type: 'password', autocomplete: 'new-password', required: true },
  });
  const status = h('p', { class: 'status', attrs: { role: 'alert', id: 'setup-status', hidden: true } });
  const submit = h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Create the admin account');
  const form = h(
    'form',
    { class: 'login-card', attrs: { id: 'setup-form', 'aria-labelledby': 'setup-title' } },
    h('h1', { attrs: { id: 'setup-title' } }, 'Welcome to dms-rules'),
    h(
      'p',
      { class: 'muted' },
      'Create the admin account. It is stored (the password as a hash) in config.yml in the data directory; this page is shown only once.',
    ),
    h(
      'p',
      { class: 'muted small', attrs: { id: 'setup-code-help' } },
      'The setup code proves you are at the machine the service runs on: it is in the file setup-code in its data directory and in its start log, whose link fills it in here (the desktop app does so by itself).',
    ),
    h('label', { attrs: { for: 'setup-code' } }, 'Setup code'),
    code,
    h('label', { attrs: { for: 'setup-user' } }, 'User name'),
    user,
    h('label', { attrs: { for: 'setup-password' } }, 'Password (at least 8 characters)'),
    pass,
    h('label', { attrs: { for: 'setup-password-again' } }, 'Password again'),
    again,
    status,
    submit,
    h(
      'div',
      { class: 'muted small', attrs: { id: 'setup-next' } },
      h('p', {}, 'Then, to connect Paperless-ngx:'),
      h(
        'ol',
        {},
        h(
          'li',
          {},
          'Settings: the Paperless URL and an API token (best: of a Paperless user of its own for the service).',
        ),
        h(
          'li',
          {},
          'Recommended: in Paperless, a workflow with a webhook action to this service (/api/webhook/dms). The webhook runs the rules on every change at once, bulk edits included; without it the service polls every 5 minutes and does not see bulk edits.',
        ),
      ),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (pass.value !== again.value) return say(status, 'The two passwords differ.', 'error');
    submit.disabled = true;
    createAdmin(code.value.trim(), user.value.trim(), pass.value)
      .then(onCreated)
      .catch((err: unknown) => say(status, errorMessage(err), 'error'))
      .finally(() => (submit.disabled = false));
  });
  root.replaceChildren(h('main', { class: 'login-page' }, form));
  (code.value ? pass : code).focus();
}
