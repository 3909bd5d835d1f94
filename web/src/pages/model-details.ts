/** Facts and metadata of a model: edit name/description/tags, thumbnail upload and regeneration, deletion. */
import {
  deleteModel,
  getModel,
  regenerateThumbnail,
  updateModel,
  uploadThumbnail,
} from '../api/catalog-api.ts';
import type { Model, ModelPatch } from '../api/types.ts';
import { h, uid } from '../ui/dom.ts';
import { formatBytes, formatCount, formatDate } from '../ui/format.ts';
import { attempt, notifyError, notifyInfo } from '../ui/notify.ts';

/** How long to wait for a regenerated thumbnail before telling the person it is still queued. */
const REGENERATE_WAIT_MS = 60000;
const REGENERATE_POLL_MS = 2000;

/** Callbacks of {@link createModelDetails}. */
export interface ModelDetailsHandlers {
  onUpdated: (model: Model) => void;
  onDeleted: () => void;
}

/** The details section and a function stopping its timers. */
export interface ModelDetails {
  element: HTMLElement;
  dispose: () => void;
}

/** Builds the details section of `model`. */
export function createModelDetails(initial: Model, handlers: ModelDetailsHandlers): ModelDetails {
  let model = initial;
  let waitTimer: ReturnType<typeof setTimeout> | undefined;
  const nameId = uid('model-name');
  const descriptionId = uid('model-description');
  const tagsId = uid('model-tags');
  const thumbId = uid('thumbnail-file');
  const nameInput = h('input', {
    id: nameId,
    type: 'text',
    required: true,
    maxlength: 255,
    value: model.name,
  });
  const descriptionInput = h(
    'textarea',
    { id: descriptionId, rows: 3, maxlength: 10000 },
    model.description ?? '',
  );
  const tagsInput = h('input', {
    id: tagsId,
    type: 'text',
    value: model.tags.join(', '),
    'aria-describedby': `${tagsId}-hint`,
  });
  const facts = h('dl', { class: 'facts' });
  const thumbnail = h('div', { class: 'thumb large' });
  const thumbInput = h('input', {
    id: thumbId,
    type: 'file',
    accept: 'image/png,image/jpeg',
    class: 'visually-hidden',
  });
  const regenerateButton = h(
    'button',
    { type: 'button', onclick: () => regenerate() },
    'Regenerate thumbnail',
  );

  const show = (next: Model): void => {
    model = next;
    const rows: [string, Node | string][] = [
      ['File', `${model.original_filename} (${formatBytes(model.file_size)})`],
      ['Format', model.format.toUpperCase()],
      ['Triangles', formatCount(model.triangle_count)],
      ['Vertices', formatCount(model.vertex_count)],
      ['Parts', formatCount(model.part_count)],
      ['Created', formatDate(model.created_at)],
      ['Updated', formatDate(model.updated_at)],
    ];
    if (model.model_url)
      rows.push(['Download', h('a', { href: model.model_url, download: '' }, 'GLB (full detail)')]);
    facts.replaceChildren(...rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));
    thumbnail.replaceChildren(
      model.thumbnail_url
        ? h('img', { src: model.thumbnail_url, alt: `Thumbnail of ${model.name}`, width: 256, height: 256 })
        : h('div', { class: 'thumb-placeholder' }, 'No thumbnail'),
    );
    regenerateButton.disabled = !model.model_url;
  };

  const form = h(
    'form',
    { class: 'details-form', 'aria-label': 'Model metadata' },
    h('div', { class: 'field' }, h('label', { for: nameId }, 'Name'), nameInput),
    h('div', { class: 'field' }, h('label', { for: descriptionId }, 'Description'), descriptionInput),
    h(
      'div',
      { class: 'field' },
      h('label', { for: tagsId }, 'Tags'),
      tagsInput,
      h('small', { id: `${tagsId}-hint` }, 'Separate tags with commas.'),
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Save details'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const patch: ModelPatch = {};
    const name = nameInput.value.trim();
    const description = descriptionInput.value;
    const tags = tagsInput.value
      .split(',')
      .map((tag) => tag.trim())
      .filter(Boolean);
    if (name !== model.name) patch.name = name;
    if (description !== (model.description ?? '')) patch.description = description;
    if (tags.join('\n') !== model.tags.join('\n')) patch.tags = tags;
    if (Object.keys(patch).length === 0) {
      notifyInfo('Nothing changed.');
      return;
    }
    attempt('Saving details', async () => {
      const saved = await updateModel(model.id, patch);
      show(saved);
      handlers.onUpdated(saved);
      notifyInfo('Details saved');
    });
  });

  thumbInput.addEventListener('change', () => {
    const file = thumbInput.files?.[0];
    thumbInput.value = '';
    if (!file) return;
    attempt('Uploading the thumbnail', async () => {
      const saved = await uploadThumbnail(model.id, file);
      show(saved);
      handlers.onUpdated(saved);
      notifyInfo('Thumbnail replaced');
    });
  });

  const regenerate = (): void => {
    const before = model.thumbnail_url;
    regenerateButton.disabled = true;
    attempt('Regenerating the thumbnail', async () => {
      try {
        await regenerateThumbnail(model.id);
      } catch (error) {
        regenerateButton.disabled = false;
        throw error;
      }
      notifyInfo('Thumbnail regeneration queued');
      const deadline = Date.now() + REGENERATE_WAIT_MS;
      // The job runs in the background; watch for the new URL so the image updates by itself.
      const check = (): void => {
        getModel(model.id)
          .then((next) => {
            if (next.thumbnail_url !== before) {
              show(next);
              handlers.onUpdated(next);
              regenerateButton.disabled = false;
            } else if (Date.now() < deadline) {
              waitTimer = setTimeout(check, REGENERATE_POLL_MS);
            } else {
              regenerateButton.disabled = false;
              notifyInfo('The thumbnail is still being rendered; reload later to see it.');
            }
          })
          .catch((error: unknown) => {
            regenerateButton.disabled = false;
            notifyError(error, 'Checking the thumbnail');
          });
      };
      waitTimer = setTimeout(check, REGENERATE_POLL_MS);
    });
  };

  const remove = (): void => {
    if (!confirm(`Delete “${model.name}”? Its files, parts and levels of detail are removed for good.`))
      return;
    attempt('Deleting the model', async () => {
      await deleteModel(model.id);
      notifyInfo(`Deleted ${model.name}`);
      handlers.onDeleted();
    });
  };

  show(model);
  const element = h(
    'div',
    { class: 'model-details' },
    h(
      'div',
      { class: 'thumbnail-box' },
      thumbnail,
      h(
        'div',
        { class: 'button-column' },
        thumbInput,
        h('label', { for: thumbId, class: 'button file-button' }, 'Upload thumbnail'),
        regenerateButton,
      ),
    ),
    facts,
    form,
    h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete model'),
  );
  return { element, dispose: () => clearTimeout(waitTimer) };
}
