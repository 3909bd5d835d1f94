/** The catalog: upload, search and filters, a grid of thumbnails and paging. */
import { MODEL_FORMATS } from '../../../src/pipeline/types.ts';
import { listModels } from '../api/catalog-api.ts';
import { MODEL_STATUSES } from '../api/types.ts';
import type { Model, ModelQuery, ModelStatus } from '../api/types.ts';
import type { Page } from '../router.ts';
import { h, replaceChildren, uid } from '../ui/dom.ts';
import { formatCount } from '../ui/format.ts';
import { notifyError } from '../ui/notify.ts';
import { statusBadge } from '../ui/status-badge.ts';
import { createUploadPanel } from './upload-panel.ts';

const PAGE_SIZE = 24;
/** How often the grid refreshes while one of its models is still converting. */
const REFRESH_MS = 2000;

/** Filters survive leaving the page, so returning from a model keeps the person's place. */
const state: Required<Pick<ModelQuery, 'search' | 'format' | 'offset'>> & { status: ModelStatus | '' } = {
  search: '',
  status: '',
  format: '',
  offset: 0,
};

/** Mounts the catalog page. */
export const catalogPage: Page = (outlet) => {
  let serial = 0;
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  let left = false;

  const grid = h('ul', { class: 'model-grid', 'aria-label': 'Models' });
  const summary = h('p', { class: 'result-summary', role: 'status' }, 'Loading…');
  const previous = h('button', { type: 'button', onclick: () => goTo(state.offset - PAGE_SIZE) }, 'Previous');
  const next = h('button', { type: 'button', onclick: () => goTo(state.offset + PAGE_SIZE) }, 'Next');
  const pageLabel = h('span', { class: 'page-label' });

  const load = async (): Promise<void> => {
    const mine = ++serial;
    clearTimeout(refreshTimer);
    try {
      const page = await listModels({ ...state, limit: PAGE_SIZE });
      if (mine !== serial || left) return;
      if (page.models.length === 0 && page.total > 0 && state.offset > 0) {
        // The last page emptied (e.g. after a delete): step back instead of showing nothing.
        state.offset = Math.max(0, state.offset - PAGE_SIZE);
        return load();
      }
      render(page.models, page.total);
      if (page.models.some((model) => model.status === 'pending' || model.status === 'processing')) {
        refreshTimer = setTimeout(() => void load(), REFRESH_MS);
      }
    } catch (error) {
      if (mine !== serial || left) return;
      summary.textContent = 'The catalog could not be loaded.';
      notifyError(error, 'Loading the catalog');
    }
  };

  const render = (models: Model[], total: number): void => {
    const filtered = state.search || state.status || state.format;
    summary.textContent =
      total === 0
        ? filtered
          ? 'No model matches these filters.'
          : 'No models yet: upload one above.'
        : `${formatCount(total)} model${total === 1 ? '' : 's'}`;
    replaceChildren(grid, models.map(modelCard));
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    pageLabel.textContent = `Page ${Math.floor(state.offset / PAGE_SIZE) + 1} of ${pages}`;
    previous.disabled = state.offset === 0;
    next.disabled = state.offset + PAGE_SIZE >= total;
  };

  const goTo = (offset: number): void => {
    state.offset = Math.max(0, offset);
    void load();
  };

  const upload = createUploadPanel(() => void load());
  outlet.append(
    h(
      'section',
      { class: 'catalog' },
      h('h1', {}, 'Models'),
      upload.element,
      filterForm(
        () => goTo(0),
        (delayed) => {
          clearTimeout(searchTimer);
          searchTimer = setTimeout(() => goTo(0), delayed ? 300 : 0);
        },
      ),
      summary,
      grid,
      h('nav', { class: 'pager', 'aria-label': 'Catalog pages' }, previous, pageLabel, next),
    ),
  );
  void load();
  return () => {
    left = true;
    clearTimeout(refreshTimer);
    clearTimeout(searchTimer);
    upload.dispose();
  };
};

function filterForm(apply: () => void, applySoon: (delayed: boolean) => void): HTMLElement {
  const searchId = uid('search');
  const statusId = uid('status');
  const formatId = uid('format');
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
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter models' },
    h('div', { class: 'field grow' }, h('label', { for: searchId }, 'Search'), search),
    h('div', { class: 'field' }, h('label', { for: statusId }, 'Status'), status),
    h('div', { class: 'field' }, h('label', { for: formatId }, 'Format'), format),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    applySoon(false);
  });
  return form;
}

function modelCard(model: Model): HTMLElement {
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
      h('span', { class: 'triangles' }, `${formatCount(model.triangle_count)} triangles`),
    ),
    model.status === 'failed' && model.error ? h('p', { class: 'error-text small' }, model.error) : null,
  );
}
