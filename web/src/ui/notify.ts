/** Status and error messages in one live region, so no API failure passes silently. */
import { h } from './dom.ts';

let region: HTMLElement | null = null;

function ensureRegion(): HTMLElement {
  if (!region) {
    region = h('div', { id: 'notices', class: 'notices', 'aria-live': 'polite' });
    document.body.appendChild(region);
  }
  return region;
}

function show(kind: 'error' | 'info', text: string, timeoutMs: number): void {
  const notice = h(
    'div',
    { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'status' },
    h('span', {}, text),
    h(
      'button',
      { type: 'button', class: 'notice-close', 'aria-label': 'Dismiss', onclick: () => notice.remove() },
      '×',
    ),
  );
  ensureRegion().appendChild(notice);
  if (timeoutMs > 0) setTimeout(() => notice.remove(), timeoutMs);
}

/** Shows an error until dismissed (or for 15 s); accepts anything thrown. */
export function notifyError(error: unknown, context?: string): void {
  const text = error instanceof Error ? error.message : String(error);
  show('error', context ? `${context}: ${text}` : text, 15000);
}

/** Shows a short confirmation. */
export function notifyInfo(text: string): void {
  show('info', text, 4000);
}

/** Runs an async action and reports its failure instead of dropping it. */
export function attempt(context: string, action: () => Promise<unknown>): void {
  action().catch((error: unknown) => notifyError(error, context));
}
