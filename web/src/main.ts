/** Entry point: asks for the token when needed, then routes between the catalog, a model and the materials. */
import { onUnauthorized } from './api/api-error.ts';
import { clearToken, getToken } from './api/token.ts';
import { catalogPage } from './pages/catalog-page.ts';
import { materialsPage } from './pages/materials-page.ts';
import { modelPage } from './pages/model-page.ts';
import { mountTokenPage } from './pages/token-page.ts';
import { startRouter } from './router.ts';
import type { Page } from './router.ts';
import { h } from './ui/dom.ts';

const root = document.getElementById('app');
if (!root) throw new Error('index.html has no #app element');
const app = root;

let stopRouter: (() => void) | null = null;

const notFound: Page = (outlet) => {
  outlet.append(
    h(
      'section',
      { class: 'card' },
      h('h1', {}, 'Page not found'),
      h('a', { href: '#/' }, 'Back to the catalog'),
    ),
  );
  return () => undefined;
};

function askForToken(reason?: string): void {
  stopRouter?.();
  stopRouter = null;
  mountTokenPage(app, showApp, reason);
}

function showApp(): void {
  const outlet = h('main', { id: 'main', class: 'main', tabindex: -1 });
  const header = h(
    'header',
    { class: 'top-bar' },
    h('a', { class: 'skip-link', href: '#main', onclick: skipToMain }, 'Skip to content'),
    h('a', { class: 'brand', href: '#/' }, 'Vitrine'),
    h(
      'nav',
      { 'aria-label': 'Main' },
      h('a', { href: '#/' }, 'Models'),
      h('a', { href: '#/materials' }, 'Materials'),
      h('a', { href: '/docs', target: '_blank', rel: 'noopener' }, 'API docs'),
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'link-button',
        onclick: () => {
          clearToken();
          askForToken();
        },
      },
      'Change token',
    ),
  );
  app.replaceChildren(header, outlet);
  stopRouter = startRouter(
    outlet,
    [
      { pattern: '/', page: () => catalogPage },
      { pattern: '/materials', page: () => materialsPage },
      { pattern: '/models/:id', page: (params) => modelPage(params.id) },
    ],
    notFound,
  );
}

function skipToMain(event: Event): void {
  // The hash holds the route, so the usual #main jump would navigate away.
  event.preventDefault();
  document.getElementById('main')?.focus();
}

onUnauthorized(() => {
  if (!getToken() || !stopRouter) return;
  clearToken();
  askForToken('The server rejected the stored API token. Enter it again.');
});

if (getToken()) showApp();
else askForToken();
