// When a session ends on a signed-in page, the sign-in comes over the page instead of replacing it: the
// editor's text stays where it is (and in the browser's storage), and what waited is saved once signed in.
import { focusedElement, h } from '../dom.js';
import { loginForm } from '../pages/login-page.js';

let open: HTMLDialogElement | null = null;

/** Shows the sign-in over the page (once, however many requests were refused); `onSignedIn` runs after. */
export function signInOverPage(onSignedIn: () => void): void {
  if (open) return;
  const opener = focusedElement();
  const dialog = h('dialog', {
    class: 'sign-in-dialog',
    attrs: { id: 'sign-in-dialog', 'aria-labelledby': 'relogin-title' },
  });
  const login = loginForm(
    () => {
      dialog.close();
      dialog.remove();
      open = null;
      opener?.focus();
      onSignedIn();
    },
    'Your session has ended. Sign in again to go on: what you typed stays on this page and is saved once you are signed in.',
    'relogin',
  );
  // Escape would leave the page with nothing able to save: the dialog stays until signed in.
  dialog.addEventListener('cancel', (event) => event.preventDefault());
  dialog.append(login.form);
  document.body.append(dialog);
  open = dialog;
  dialog.showModal();
  login.focus();
}

/** True while the sign-in is shown over the page. */
export function signInShown(): boolean {
  return open !== null;
}
