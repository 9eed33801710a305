// The sign-in form. 403 and 429 get messages that say what to do next.
import { ApiError, errorMessage } from '../api.js';
import { h, say } from '../dom.js';
import { signIn } from '../session.js';

export function loginMessage(err: unknown): string {
  if (err instanceof ApiError && err.status === 403) {
    return 'Wrong user name or password. (If no admin account is configured, set SVC_ADMIN_USER and SVC_ADMIN_PASSWORD and restart the service.)';
  }
  if (err instanceof ApiError && err.status === 429) {
    const seconds = err.retryAfter ?? 300;
    const at = new Date(Date.now() + seconds * 1000).toLocaleTimeString();
    const wait = seconds >= 90 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} seconds`;
    return `Too many sign-in attempts from this address. Try again in ${wait} (at ${at}).`;
  }
  return errorMessage(err);
}

export function renderLogin(root: HTMLElement, onSignedIn: () => void): void {
  const user = h('input', { attrs: { id: 'login-user', name: 'username', autocomplete: 'username', required: true, autofocus: true } });
  const pass = h('input', { attrs: { id: 'login-password', name: 'password', type: 'password', autocomplete: 'current-password', required: true } });
  const status = h('p', { class: 'status', attrs: { role: 'alert', id: 'login-status', hidden: true } });
  const submit = h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Sign in');
  const form = h(
    'form',
    { class: 'login-card', attrs: { 'aria-labelledby': 'login-title' } },
    h('h1', { attrs: { id: 'login-title' } }, 'dms-rules'),
    h('p', { class: 'muted' }, 'Sign in to edit and run your document rules.'),
    h('label', { attrs: { for: 'login-user' } }, 'User name'),
    user,
    h('label', { attrs: { for: 'login-password' } }, 'Password'),
    pass,
    status,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit.disabled = true;
    say(status, '');
    signIn(user.value, pass.value)
      .then(onSignedIn)
      .catch((err: unknown) => {
        say(status, loginMessage(err), 'error');
        pass.select();
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  root.replaceChildren(h('main', { class: 'login-page' }, form));
  user.focus();
}
