// The sign-in form. 403 and 429 get messages that say what to do next.
import { h, say } from '../dom.js';
import { loginMessage } from '../login-message.js';
import { signIn } from '../session.js';

export interface LoginForm {
  form: HTMLFormElement;
  /** Puts the keyboard in the first empty field. */
  focus(): void;
}

/** The form on its own: the login page shows it, and so does the sign-in over the page when a session ends. */
export function loginForm(onSignedIn: () => void, intro: string, idPrefix = 'login'): LoginForm {
  const user = h('input', {
    attrs: { id: `${idPrefix}-user`, name: 'username', autocomplete: 'username', required: true },
  });
  const pass = h('input', {
    attrs: {
      id: `${idPrefix}-password`,
      name: 'password',
      type: 'password',
      autocomplete: 'current-password',
      required: true,
    },
  });
  const status = h('p', { class: 'status', attrs: { role: 'alert', id: `${idPrefix}-status`, hidden: true } });
  const submit = h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Sign in');
  const form = h(
    'form',
    { class: 'login-card', attrs: { 'aria-labelledby': `${idPrefix}-title` } },
    h('h1', { attrs: { id: `${idPrefix}-title` } }, 'dms-rules'),
    h('p', { class: 'muted' }, intro),
    h('label', { attrs: { for: `${idPrefix}-user` } }, 'User name'),
    user,
    h('label', { attrs: { for: `${idPrefix}-password` } }, 'Password'),
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
  return { form, focus: () => (user.value ? pass : user).focus() };
}

export function renderLogin(root: HTMLElement, onSignedIn: () => void): void {
  const login = loginForm(onSignedIn, 'Sign in to edit and run your document rules.');
  root.replaceChildren(h('main', { class: 'login-page' }, login.form));
  login.focus();
}
