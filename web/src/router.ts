/** Hash routes, so the server serves one index.html and needs no fallback for deep links. */

/** A page mounted into the main element; returns what to run when the person leaves it. */
export type Page = (outlet: HTMLElement) => () => void;

/** A route: a pattern like `/models/:id` and the page it builds from the captured parameters. */
export interface Route {
  pattern: string;
  page: (params: Record<string, string>) => Page;
}

/** Matches a path against `:name` patterns; returns the decoded parameters or null. */
export function matchRoute(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i += 1) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(have[i]);
    else if (want[i] !== have[i]) return null;
  }
  return params;
}

/** The current route path from the hash, `/` when there is none. */
export function currentPath(): string {
  const path = location.hash.replace(/^#/, '').split('?')[0];
  return path || '/';
}

/** The query after the route path in the hash (`#/models/1?view=2` gives `view=2`); empty when there is none. */
export function hashQuery(): URLSearchParams {
  const hash = location.hash.replace(/^#/, '');
  const at = hash.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : hash.slice(at + 1));
}

/** Navigates to a route path. */
export function navigate(path: string): void {
  location.hash = `#${path}`;
}

/** Starts routing: mounts the matching page now and on every hash change; `fallback` handles unknown paths. */
export function startRouter(outlet: HTMLElement, routes: Route[], fallback: Page): () => void {
  let leave: (() => void) | null = null;
  const render = (): void => {
    leave?.();
    outlet.replaceChildren();
    const path = currentPath();
    let page = fallback;
    for (const route of routes) {
      const params = matchRoute(route.pattern, path);
      if (params) {
        page = route.page(params);
        break;
      }
    }
    leave = page(outlet);
    window.scrollTo(0, 0);
  };
  window.addEventListener('hashchange', render);
  render();
  return () => {
    window.removeEventListener('hashchange', render);
    leave?.();
    leave = null;
  };
}
