// The sign-in form. 403 and 429 get messages that say what to do next.
import { h, say } from '../dom.js';
import { loginMessage } from '../login-message.js';
import { signIn } from '../session.js';

export function renderLogin(root: HTMLElement, onSignedIn: () => void): void {
  const user = h('input', {
    attrs: { id: 'login-user', name: 'username', autocomplete: 'username', required: true, autofocus: true },
  });
  const pass = h('input', {
    attrs: {
      id: 'login-password',
      name: 'password',
      type: 'password',
      autocomplete: 'current-password',
      required: true,
    },
  });
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
