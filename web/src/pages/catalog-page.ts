/** The catalog: upload, search and filters, a grid of thumbnails and paging. */
import { MODEL_FORMATS } from '../../../src/pipeline/types.ts';
import { listModels } from '../api/catalog-api.ts';
import { subscribeEvents, type ServerEvent } from '../api/events.ts';
import { MODEL_STATUSES } from '../api/types.ts';
import type { Model, ModelSort, ModelStatus } from '../api/types.ts';
import type { Page } from '../router.ts';
import { h, replaceChildren, uid } from '../ui/dom.ts';
import { formatCount, formatGeometry } from '../ui/format.ts';
import { notifyError } from '../ui/notify.ts';
import { statusBadge } from '../ui/status-badge.ts';
import { catalogHash, emptyQuery, parseCatalogHash, SORT_CHOICES } from './catalog-query.ts';
import type { CatalogQuery } from './catalog-query.ts';
import { createUploadPanel } from './upload-panel.ts';

const PAGE_SIZE = 24;
/** How often the grid refreshes while one of its models is still converting, when there is no event stream. */
const REFRESH_MS = 2000;
/** Changes arriving this close together cause one reload. */
const RELOAD_DEBOUNCE_MS = 250;

/**
 * The last query shown. The hash carries it across reloads and links; this copy brings it back when the person
 * returns through a plain `#/` link from a model page.
 */
let remembered: CatalogQuery = emptyQuery();

/** True for the catalog's addresses: none, `#/`, or `#/?` with its query. */
const isCatalogHash = (hash: string): boolean => hash === '' || hash === '#/' || hash.startsWith('#/?');

/** Mounts the catalog page. */
export const catalogPage: Page = (outlet) => {
  const state: CatalogQuery = parseCatalogHash(location.hash) ?? { ...remembered };
  let serial = 0;
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  let left = false;
  let live = false;
  let shown: { models: Model[]; total: number } = { models: [], total: 0 };

  const grid = h('ul', { class: 'model-grid', 'aria-label': 'Models' });
  const summary = h('p', { class: 'result-summary', role: 'status' }, 'Loading…');
  const previous = h('button', { type: 'button', onclick: () => goTo(state.page - 1) }, 'Previous');
  const next = h('button', { type: 'button', onclick: () => goTo(state.page + 1) }, 'Next');
  const pageLabel = h('span', { class: 'page-label' });

  const load = async (): Promise<void> => {
    const mine = ++serial;
    clearTimeout(refreshTimer);
    remember();
    try {
      const { page: pageNumber, ...filters } = state;
      const page = await listModels({ ...filters, offset: (pageNumber - 1) * PAGE_SIZE, limit: PAGE_SIZE });
      if (mine !== serial || left) return;
      if (page.models.length === 0 && page.total > 0 && state.page > 1) {
        // The last page emptied (e.g. after a delete, or an old link): go to the last page that has models.
        state.page = Math.max(1, Math.ceil(page.total / PAGE_SIZE));
        return load();
      }
      render(page.models, page.total);
      const converting = page.models.some(
        (model) => model.status === 'pending' || model.status === 'processing',
      );
      if (!live && converting) {
        refreshTimer = setTimeout(() => void load(), REFRESH_MS);
      }
    } catch (error) {
      if (mine !== serial || left) return;
      summary.textContent = 'The catalog could not be loaded.';
      notifyError(error, 'Loading the catalog');
    }
  };

  const render = (models: Model[], total: number): void => {
    shown = { models, total };
    const filtered = state.search || state.status || state.format || state.tag;
    summary.textContent =
      total === 0
        ? filtered
          ? 'No model matches these filters.'
          : 'No models yet: upload one above.'
        : `${formatCount(total)} model${total === 1 ? '' : 's'}`;
    replaceChildren(
      grid,
      models.map((model) => modelCard(model, (tag) => filters.setTag(tag))),
    );
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    pageLabel.textContent = `Page ${state.page} of ${pages}`;
    previous.disabled = state.page <= 1;
    next.disabled = state.page * PAGE_SIZE >= total;
  };

  /** Writes the query into the hash without a new history entry or a hashchange (which would rebuild the page). */
  const remember = (): void => {
    remembered = { ...state };
    // Only over the catalog's own address: a refresh that runs after the address moved to a model (its hashchange
    // not yet handled) must not write the catalog back over it, or the router would read the catalog's.
    if (left || !isCatalogHash(location.hash)) return;
    const hash = catalogHash(state);
    if (location.hash !== hash && !(hash === '#/' && location.hash === '')) {
      history.replaceState(history.state, '', hash);
    }
  };

  const goTo = (page: number): void => {
    state.page = Math.max(1, page);
    void load();
  };

  const upload = createUploadPanel(() => void load());
  const filters = filterForm(
    state,
    () => goTo(1),
    (delayed) => {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(() => goTo(1), delayed ? 300 : 0);
    },
  );
  outlet.append(
    h(
      'section',
      { class: 'catalog' },
      h('h1', {}, 'Models'),
      upload.element,
      filters.element,
      summary,
      grid,
      h('nav', { class: 'pager', 'aria-label': 'Catalog pages' }, previous, pageLabel, next),
    ),
  );
  // Progress redraws the card from the event; any other change to the list reads the page again, once per burst.
  const onEvent = (event: ServerEvent): void => {
    const data = event.data as { model_id?: string };
    const index = shown.models.findIndex((model) => model.id === data.model_id);
    if (event.type === 'model.progress' && index >= 0 && 'status' in event.data) {
      const { status, progress } = event.data;
      const models = shown.models.with(index, { ...shown.models[index]!, status, progress });
      render(models, shown.total);
      return;
    }
    const listChanges = event.type === 'model.created' || event.type === 'model.deleted';
    if (!listChanges && (index < 0 || event.type === 'bindings.changed')) return;
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => void load(), RELOAD_DEBOUNCE_MS);
  };
  void load();
  const closeEvents = subscribeEvents(
    {},
    {
      onEvent,
      // Opened (or back after a drop): read once, so changes made before the stream was there show too.
      onOpen: () => {
        live = true;
        void load();
      },
      onUnavailable: () => {
        live = false;
        void load();
      },
    },
  );
  return () => {
    left = true;
    closeEvents();
    clearTimeout(refreshTimer);
    clearTimeout(searchTimer);
    upload.dispose();
  };
};

/** The filter form and a way to set its tag from outside (a tag clicked on a card). */
interface FilterForm {
  element: HTMLElement;
  setTag: (tag: string) => void;
}

function filterForm(
  state: CatalogQuery,
  apply: () => void,
  applySoon: (delayed: boolean) => void,
): FilterForm {
  const searchId = uid('search');
  const statusId = uid('status');
  const formatId = uid('format');
  const tagId = uid('tag');
  const sortId = uid('sort');
  const search = h('input', {
    id: searchId,
    type: 'search',
    value: state.search,
    placeholder: 'Name, description or file',
  });
  search.addEventListener('input', () => {
    state.search = search.value.trim();
    applySoon(true);
  });
  const status = h(
    'select',
    { id: statusId },
    h('option', { value: '' }, 'Any status'),
    MODEL_STATUSES.map((value) => h('option', { value, selected: state.status === value }, value)),
  );
  status.addEventListener('change', () => {
    state.status = status.value as ModelStatus | '';
    apply();
  });
  const format = h(
    'select',
    { id: formatId },
    h('option', { value: '' }, 'Any format'),
    MODEL_FORMATS.map((value) =>
      h('option', { value, selected: state.format === value }, value.toUpperCase()),
    ),
  );
  format.addEventListener('change', () => {
    state.format = format.value;
    apply();
  });
  const tag = h('input', {
    id: tagId,
    type: 'search',
    value: state.tag,
    placeholder: 'Any tag',
    maxlength: 64,
  });
  tag.addEventListener('input', () => {
    state.tag = tag.value.trim();
    applySoon(true);
  });
  const sort = h(
    'select',
    { id: sortId },
    SORT_CHOICES.map((choice) =>
      h('option', { value: choice.value, selected: state.sort === choice.value }, choice.label),
    ),
  );
  sort.addEventListener('change', () => {
    state.sort = sort.value as ModelSort;
    apply();
  });
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter models' },
    h('div', { class: 'field grow' }, h('label', { for: searchId }, 'Search'), search),
    h('div', { class: 'field' }, h('label', { for: statusId }, 'Status'), status),
    h('div', { class: 'field' }, h('label', { for: formatId }, 'Format'), format),
    h('div', { class: 'field' }, h('label', { for: tagId }, 'Tag'), tag),
    h('div', { class: 'field' }, h('label', { for: sortId }, 'Sort'), sort),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    applySoon(false);
  });
  return {
    element: form,
    setTag: (value) => {
      tag.value = value;
      state.tag = value;
      apply();
    },
  };
}

function modelCard(model: Model, onTag: (tag: string) => void): HTMLElement {
  const image = model.thumbnail_url
    ? h('img', { src: model.thumbnail_url, alt: '', loading: 'lazy', width: 256, height: 256 })
    : h('div', { class: 'thumb-placeholder', 'aria-hidden': 'true' }, model.format.toUpperCase());
  return h(
    'li',
    { class: 'model-card', 'data-model-id': model.id, 'data-status': model.status },
    h(
      'a',
      { href: `#/models/${encodeURIComponent(model.id)}` },
      h('div', { class: 'thumb' }, image),
      h('h2', { class: 'model-name' }, model.name),
    ),
    h(
      'p',
      { class: 'model-meta' },
      h('span', { class: 'badge format' }, model.format.toUpperCase()),
      statusBadge(model),
      model.tileset_url
        ? h(
            'span',
            { class: 'badge streamed', title: 'Streamed as 3D Tiles: the view loads the tiles it needs' },
            'Streamed',
          )
        : null,
      h('span', { class: 'triangles' }, formatGeometry(model)),
    ),
    model.tags.length > 0
      ? h(
          'ul',
          { class: 'tag-list', 'aria-label': 'Tags' },
          model.tags.map((tag) =>
            h(
              'li',
              {},
              h(
                'button',
                {
                  type: 'button',
                  class: 'tag',
                  title: `Show models tagged “${tag}”`,
                  onclick: () => onTag(tag),
                },
                tag,
              ),
            ),
          ),
        )
      : null,
    model.status === 'failed' && model.error ? h('p', { class: 'error-text small' }, model.error) : null,
  );
}
