// Entry point: decides which page a path shows and keeps the signed-out person on the login page.
import './styles/app.css';
import { errorMessage, onUnauthorized, onUnreachable } from './api.js';
import { signInOverPage } from './components/sign-in-dialog.js';
import { announceReconnect, onReconnect, reportUnreachable } from './connection.js';
import { h } from './dom.js';
import { jobIdIn, renderJobPage } from './pages/job-page.js';
import { renderJobsPage } from './pages/jobs-page.js';
import { renderLogin } from './pages/login-page.js';
import { renderRulesPage } from './pages/rules-page.js';
import { renderSuggestPage } from './pages/suggest-page.js';
import { renderSettingsPage } from './pages/settings-page.js';
import { renderSetup } from './pages/setup-page.js';
import { renderShell, updateShell } from './pages/shell.js';
import { renderTracesPage } from './pages/traces-page.js';
import { navigate, startRouter } from './router.js';
import {
  currentUser,
  forgetSession,
  refreshConfig,
  setupState,
  takeSetupCodeFromAddress,
  uiConfig,
} from './session.js';

const root = document.getElementById('app') as HTMLElement;
/** Pages with timers (job polling, autosave) register a cleanup that runs when the page changes. */
let cleanup: (() => void) | null = null;

const TITLES: Record<string, string> = {
  rules: 'Rules',
  traces: 'Traces',
  jobs: 'Jobs',
  settings: 'Settings',
  login: 'Sign in',
  setup: 'Set up',
};

/** The tab names the page: "Rules · dms-rules". */
function setTitle(page: string): void {
  document.title = `${TITLES[page] ?? page} · dms-rules`;
}

function nextPath(): string {
  const next = new URLSearchParams(location.search).get('next') ?? '/rules';
  // Only a path on this site, never another origin.
  return next.startsWith('/') && !next.startsWith('//') ? next : '/rules';
}

async function route(path: string): Promise<void> {
  cleanup?.();
  cleanup = null;
  if (path === '/login') {
    setTitle('login');
    if (await currentUser()) return navigate(nextPath(), { replace: true, force: true });
    const setup = await setupState();
    if (setup.needed) {
      setTitle('setup');
      renderSetup(root, () => navigate(nextPath(), { replace: true, force: true }));
      return;
    }
    renderLogin(root, () => navigate(nextPath(), { replace: true, force: true }));
    return;
  }
  const me = await currentUser();
  if (!me) return navigate(`/login?next=${encodeURIComponent(path + location.search)}`, { replace: true, force: true });
  const config = await uiConfig().catch(() => null);
  if (path === '/' || path === '/rules' || path.startsWith('/rules/')) {
    const id = path.startsWith('/rules/') ? decodeURIComponent(path.slice('/rules/'.length)) : null;
    setTitle('rules');
    cleanup = await renderRulesPage(renderShell(root, me, config, 'rules'), id);
  } else if (path === '/suggest') {
    setTitle('rules');
    cleanup = renderSuggestPage(renderShell(root, me, config, 'rules'));
  } else if (path === '/traces') {
    setTitle('traces');
    cleanup = renderTracesPage(renderShell(root, me, config, 'traces'));
  } else if (path === '/jobs') {
    setTitle('jobs');
    cleanup = renderJobsPage(renderShell(root, me, config, 'jobs'));
  } else if (jobIdIn(path) !== null) {
    setTitle('jobs');
    const follow = new URLSearchParams(location.search).has('follow');
    if (follow) history.replaceState(null, '', path); // a reload later is a plain visit
    cleanup = renderJobPage(renderShell(root, me, config, 'jobs'), jobIdIn(path)!, follow);
  } else if (path === '/settings') {
    setTitle('settings');
    cleanup = renderSettingsPage(renderShell(root, me, config, 'settings'));
  } else {
    const main = renderShell(root, me, config, 'rules');
    main.append(
      h(
        'section',
        { class: 'empty' },
        h('h1', {}, 'Page not found'),
        h('a', { attrs: { href: '/rules', 'data-nav': true } }, 'Go to the rules'),
      ),
    );
  }
}

onUnauthorized(() => {
  forgetSession();
  // On a signed-in page the sign-in comes over it, so nothing on the page (an editor's text) is lost.
  if (root.querySelector('header.topbar')) return signInOverPage(announceReconnect);
  navigate(`/login?next=${encodeURIComponent(location.pathname + location.search)}`, { replace: true, force: true });
});

/** True while the page shows the "could not load" notice, so the page loads again when the service is back. */
let failed = false;

function show(path: string): void {
  failed = false;
  route(path).catch((err: unknown) => {
    failed = true;
    root.replaceChildren(
      h('main', { class: 'empty' }, h('h1', {}, 'Something went wrong'), h('p', {}, errorMessage(err))),
    );
  });
}

onUnreachable(reportUnreachable);
onReconnect(() => {
  // The service may have restarted with another dms: the header and banners say which one it uses now.
  const fresh = refreshConfig().then(updateShell, () => undefined);
  if (failed || root.querySelector('[data-load-failed]')) void fresh.then(() => show(location.pathname));
});

takeSetupCodeFromAddress();
startRouter(show);
