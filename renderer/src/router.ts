// Path-based navigation inside the single page (the server answers index.html for every UI path).

type RouteHandler = (path: string) => void;

let handler: RouteHandler = () => undefined;
let lastPath = '/';
/** Returns true while the current page holds unsaved work. */
let isDirty: (() => boolean) | null = null;

const LEAVE_QUESTION = 'You have unsaved changes in the editor. Leave this page and lose them?';

/** A page with unsaved work registers a check; navigation then asks before leaving. */
export function setDirtyCheck(check: (() => boolean) | null): void {
  isDirty = check;
}

/** True when there is nothing unsaved or the person agreed to lose it. */
export function mayLeave(): boolean {
  return !isDirty || !isDirty() || window.confirm(LEAVE_QUESTION);
}

export function startRouter(onRoute: RouteHandler): void {
  handler = onRoute;
  window.addEventListener('popstate', () => {
    if (location.pathname !== lastPath && !mayLeave()) {
      // Undo the browser's back/forward: stay where the unsaved work is.
      history.pushState(null, '', lastPath);
      return;
    }
    lastPath = location.pathname;
    handler(location.pathname);
  });
  // Links inside the app navigate without a page load.
  document.addEventListener('click', (event) => {
    const link = (event.target as Element | null)?.closest?.('a[data-nav]');
    if (!(link instanceof HTMLAnchorElement)) return;
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(link.pathname + link.search);
  });
  window.addEventListener('beforeunload', (event) => {
    if (isDirty?.()) event.preventDefault();
  });
  lastPath = location.pathname;
  handler(location.pathname);
}

export function navigate(path: string, options: { replace?: boolean; force?: boolean } = {}): void {
  if (!options.force && !mayLeave()) return;
  isDirty = null;
  if (options.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  lastPath = location.pathname;
  handler(location.pathname);
}
