// A tiny element builder: the UI is plain DOM, and this keeps it readable without a framework.

type Child = Node | string | number | null | undefined | false;
type Handler = (event: Event) => void;

export interface Props {
  class?: string;
  text?: string;
  on?: Record<string, Handler>;
  attrs?: Record<string, string | number | boolean | null | undefined>;
}

/** `h('button', {class: 'primary', on: {click}}, 'Save')`. Attributes set false/null are left off. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  if (props.text !== undefined) el.textContent = props.text;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [name, handler] of Object.entries(props.on ?? {})) el.addEventListener(name, handler);
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

export function clear(el: Element): void {
  el.replaceChildren();
}

/** Shows a short status message in an element made for it (role=status or alert). */
export function say(el: HTMLElement, message: string, kind: 'info' | 'ok' | 'error' = 'info'): void {
  el.textContent = message;
  el.dataset.kind = kind;
  el.hidden = message === '';
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** The element that has the keyboard, inside shadow roots too (the editor lives in one). */
export function focusedElement(): HTMLElement | null {
  let active: Element | null = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active instanceof HTMLElement ? active : null;
}
