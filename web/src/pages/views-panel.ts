/** The Views card of the model page: save the current view under a name, list, restore, link to and delete views. */
import { createView, deleteView, listViews, type SavedView } from '../api/review-api.ts';
import { h } from '../ui/dom.ts';
import { formatDate } from '../ui/format.ts';
import { attempt, notifyInfo } from '../ui/notify.ts';
import { applyView, captureView, type ViewState } from './saved-view-state.ts';
import type { WriteAccess } from './write-access.ts';

/** The address that opens model `modelId` at saved view `viewId`. */
export function viewLink(modelId: string, viewId: string): string {
  const route = `#/models/${encodeURIComponent(modelId)}?view=${encodeURIComponent(viewId)}`;
  return `${location.origin}${location.pathname}${route}`;
}

/** Restores `saved`, telling the person what could not be. */
export function restoreView(state: ViewState, saved: SavedView): void {
  const missed = applyView(state, saved);
  notifyInfo(
    missed.length === 0
      ? `View “${saved.name}” restored`
      : `View “${saved.name}” restored without ${missed.join(', ')}`,
  );
}

/** The event that makes a views panel fetch its list again (a BCF import added views). */
export const VIEWS_CHANGED = 'views-changed';

/** Builds the card for `modelId`; `state` reads and sets the page's view. */
export function createViewsPanel(modelId: string, state: ViewState, access: WriteAccess): HTMLElement {
  const list = h('ul', { class: 'review-list views-list', 'aria-live': 'polite' });
  const nameInput = h('input', {
    type: 'text',
    class: 'view-name',
    maxLength: 200,
    placeholder: 'Name of this view',
    'aria-label': 'Name of the view to save',
  });
  const saveButton = h('button', { type: 'submit', class: 'primary' }, 'Save view');
  const form = h('form', { class: 'view-save' }, nameInput, saveButton);
  const deleteButtons: HTMLButtonElement[] = [];

  const render = (views: SavedView[]): void => {
    deleteButtons.length = 0;
    list.replaceChildren(
      ...(views.length === 0
        ? [h('li', { class: 'hint' }, 'No saved views yet.')]
        : views.map((saved) => {
            const remove = h('button', { type: 'button', class: 'danger' }, 'Delete');
            remove.disabled = !access.canWrite;
            remove.addEventListener('click', () =>
              access.attempt('Deleting the view', async () => {
                await deleteView(modelId, saved.id);
                await refresh();
              }),
            );
            deleteButtons.push(remove);
            return h(
              'li',
              { class: 'review-item', 'data-view-id': saved.id },
              h('strong', { class: 'view-title' }, saved.name),
              h(
                'span',
                { class: 'hint' },
                [saved.author, formatDate(saved.created_at)].filter(Boolean).join(' · '),
              ),
              h(
                'div',
                { class: 'button-row' },
                h('button', { type: 'button', onclick: () => restoreView(state, saved) }, 'Restore'),
                h(
                  'button',
                  {
                    type: 'button',
                    onclick: () =>
                      attempt('Copying the link', async () => {
                        await navigator.clipboard.writeText(viewLink(modelId, saved.id));
                        notifyInfo('Link to the view copied');
                      }),
                  },
                  'Copy link',
                ),
                remove,
              ),
            );
          })),
    );
  };
  const refresh = async (): Promise<void> => render(await listViews(modelId));

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = nameInput.value.trim();
    if (!name) {
      nameInput.focus();
      return;
    }
    access.attempt('Saving the view', async () => {
      saveButton.disabled = true;
      try {
        await createView(modelId, captureView(state, name));
        nameInput.value = '';
        notifyInfo(`View “${name}” saved`);
        await refresh();
      } finally {
        saveButton.disabled = !access.canWrite;
      }
    });
  });
  access.watch((allowed) => {
    nameInput.disabled = !allowed;
    saveButton.disabled = !allowed;
    for (const button of deleteButtons) button.disabled = !allowed;
  });
  attempt('Loading the saved views', refresh);
  const panel = h('section', { class: 'card views-panel' }, h('h2', {}, 'Views'), form, list);
  panel.addEventListener(VIEWS_CHANGED, () => attempt('Loading the saved views', refresh));
  return panel;
}
