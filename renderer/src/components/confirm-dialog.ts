// The app's own yes/no question (instead of the browser's confirm()): it looks like the rest of the page,
// names the action on its button, and gives the keyboard back to the element that opened it.
import { focusedElement, h } from '../dom.js';

/** Asks `question`; resolves true when the person chose `action`. Escape or "Cancel" resolve false. */
export function confirmDialog(question: string, action: string, danger = true): Promise<boolean> {
  const opener = focusedElement();
  const yes = h(
    'button',
    { class: danger ? 'danger' : 'primary', attrs: { type: 'button', id: 'confirm-yes' } },
    action,
  );
  const no = h('button', { attrs: { type: 'button', id: 'confirm-no' } }, 'Cancel');
  const dialog = h(
    'dialog',
    { class: 'confirm-dialog', attrs: { id: 'confirm-dialog', 'aria-describedby': 'confirm-question' } },
    h('p', { attrs: { id: 'confirm-question' } }, question),
    h('div', { class: 'buttons' }, no, yes),
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    let answer = false;
    yes.addEventListener('click', () => ((answer = true), dialog.close()));
    no.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => {
      dialog.remove();
      opener?.focus();
      resolve(answer);
    });
    dialog.showModal();
    no.focus(); // the safe choice has the keyboard
  });
}
