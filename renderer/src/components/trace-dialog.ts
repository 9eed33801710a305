// A wide panel over the page for a run's traces, so a before → after table has room to be read.
import { focusedElement, h } from '../dom.js';

export interface TraceDialog {
  element: HTMLDialogElement;
  /** Replaces the content and opens the panel (the page behind stays as it was). */
  show(title: string, ...content: HTMLElement[]): void;
  close(): void;
  /** Where the keyboard goes when the panel closes, when not the element focused at show (e.g. a button disabled meanwhile). */
  returnTo(element: HTMLElement): void;
}

export function traceDialog(id: string): TraceDialog {
  const heading = h('h2', { attrs: { id: `${id}-title` } });
  const body = h('div', { class: 'trace-dialog-body', attrs: { id: `${id}-body`, 'aria-live': 'polite' } });
  const close = h('button', { class: 'close', attrs: { type: 'button', 'aria-label': 'Close' } }, 'Close ✕');
  const element = h(
    'dialog',
    { class: 'trace-dialog', attrs: { id, 'aria-labelledby': `${id}-title` } },
    h('header', {}, heading, close),
    body,
  );
  close.addEventListener('click', () => element.close());
  // The keyboard goes back to what opened the panel (Escape, Close or a click outside alike).
  let opener: HTMLElement | null = null;
  element.addEventListener('close', () => {
    if (opener?.isConnected) opener.focus();
    opener = null;
  });
  // A click on the backdrop (outside the panel's box) closes it too.
  element.addEventListener('click', (event) => {
    if (event.target === element) element.close();
  });
  return {
    element,
    show(title, ...content) {
      heading.textContent = title;
      body.replaceChildren(...content);
      if (!element.open) {
        opener ??= focusedElement();
        element.showModal();
      }
    },
    close: () => element.close(),
    returnTo: (target) => (opener = target),
  };
}
