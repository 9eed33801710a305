// Entry point: decides which page a path shows and keeps the signed-out person on the login page.
import './styles/app.css';
import { onUnauthorized } from './api.js';
import { h } from './dom.js';
import { renderJobsPage } from './pages/jobs-page.js';
import { renderLogin } from './pages/login-page.js';
import { renderRulesPage } from './pages/rules-page.js';
import { renderSettingsPage } from './pages/settings-page.js';
import { renderShell } from './pages/shell.js';
import { renderTracesPage } from './pages/traces-page.js';
import { navigate, startRouter } from './router.js';
import { currentUser, forgetSession, uiConfig } from './session.js';

const root = document.getElementById('app') as HTMLElement;
/** Pages with timers (job polling, autosave) register a cleanup that runs when the page changes. */
let cleanup: (() => void) | null = null;

function nextPath(): string {
  const next = new URLSearchParams(location.search).get('next') ?? '/rules';
  // Only a path on this site, never another origin.
  return next.startsWith('/') && !next.startsWith('//') ? next : '/rules';
}

async function route(path: string): Promise<void> {
  cleanup?.();
  cleanup = null;
  if (path === '/login') {
    if (await currentUser()) return navigate(nextPath(), { replace: true, force: true });
    renderLogin(root, () => navigate(nextPath(), { replace: true, force: true }));
    return;
  }
  const me = await currentUser();
  if (!me) return navigate(`/login?next=${encodeURIComponent(path)}`, { replace: true, force: true });
  const config = await uiConfig().catch(() => null);
  if (path === '/' || path === '/rules' || path.startsWith('/rules/')) {
    const id = path.startsWith('/rules/') ? decodeURIComponent(path.slice('/rules/'.length)) : null;
    cleanup = await renderRulesPage(renderShell(root, me, config, 'rules'), id);
  } else if (path === '/traces') {
    cleanup = renderTracesPage(renderShell(root, me, config, 'traces'));
  } else if (path === '/jobs') {
    cleanup = renderJobsPage(renderShell(root, me, config, 'jobs'));
  } else if (path === '/settings') {
    cleanup = renderSettingsPage(renderShell(root, me, config, 'settings'));
  } else {
    const main = renderShell(root, me, config, 'rules');
    main.append(h('section', { class: 'empty' }, h('h1', {}, 'Page not found'), h('a', { attrs: { href: '/rules', 'data-nav': true } }, 'Go to the rules')));
  }
}

onUnauthorized(() => {
  forgetSession();
  navigate(`/login?next=${encodeURIComponent(location.pathname)}`, { replace: true, force: true });
});

startRouter((path) => {
  route(path).catch((err: unknown) => {
    root.replaceChildren(h('main', { class: 'empty' }, h('h1', {}, 'Something went wrong'), h('p', {}, err instanceof Error ? err.message : String(err))));
  });
});
