/** "Share" on the model page: create public links, copy a link or its embed code, revoke them. */
import { createShare, embedSnippet, listShares, revokeShare, type ShareLink } from '../api/shares-api.ts';
import type { Model } from '../api/types.ts';
import { h } from '../ui/dom.ts';
import { attempt, notifyInfo } from '../ui/notify.ts';
import './share-panel.css';

/** The Share card of `model`, filling itself from the server. */
export function createSharePanel(model: Model): HTMLElement {
  const list = h('ul', { class: 'share-list', 'aria-live': 'polite' });
  const createButton = h('button', { type: 'button', class: 'primary' }, 'Create link');
  const withAnnotations = h('input', { type: 'checkbox', class: 'share-annotations' });

  const copy = async (text: string, what: string): Promise<void> => {
    await navigator.clipboard.writeText(text);
    notifyInfo(`${what} copied`);
  };

  const render = (links: ShareLink[]): void => {
    list.replaceChildren(
      ...(links.length === 0
        ? [h('li', { class: 'hint' }, 'No links yet. Anyone with a link sees this model, and nothing else.')]
        : links.map((link) =>
            h(
              'li',
              { class: 'share-item', 'data-share-id': link.id },
              h('input', {
                type: 'text',
                class: 'share-url',
                readOnly: true,
                value: link.url,
                'aria-label': 'Share link',
                onfocus: (event: Event) => (event.target as HTMLInputElement).select(),
              }),
              link.annotations ? h('span', { class: 'hint' }, 'Shows the annotations') : null,
              h(
                'div',
                { class: 'button-row' },
                h(
                  'button',
                  {
                    type: 'button',
                    onclick: () => attempt('Copying the link', () => copy(link.url, 'Link')),
                  },
                  'Copy link',
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    onclick: () =>
                      attempt('Copying the embed code', () =>
                        copy(embedSnippet(link, model.name), 'Embed code'),
                      ),
                  },
                  'Copy embed code',
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'danger',
                    onclick: () =>
                      attempt('Revoking the link', async () => {
                        await revokeShare(model.id, link.id);
                        notifyInfo('Link revoked');
                        await refresh();
                      }),
                  },
                  'Revoke',
                ),
              ),
            ),
          )),
    );
  };
  const refresh = async (): Promise<void> => render(await listShares(model.id));

  createButton.addEventListener('click', () =>
    attempt('Creating a link', async () => {
      createButton.disabled = true;
      try {
        await createShare(model.id, { annotations: withAnnotations.checked });
        await refresh();
      } finally {
        createButton.disabled = false;
      }
    }),
  );
  attempt('Loading the share links', refresh);
  return h(
    'section',
    { class: 'card share-panel' },
    h('h2', {}, 'Share'),
    h(
      'p',
      { class: 'hint' },
      'A link opens this model to anyone who has it, without a token. Revoking it ends that at once.',
    ),
    list,
    h('label', { class: 'share-option' }, withAnnotations, 'Show annotations on the page (read-only)'),
    createButton,
  );
}
