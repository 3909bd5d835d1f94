/**
 * Facts and metadata of a model: edit name/description/tags and, for a file that states none, its unit and up
 * axis (a change there converts the model again); thumbnail upload and regeneration, deletion.
 */
import { sameFile } from '../api/file-urls.ts';
import { deleteModel, getModel, regenerateThumbnail, uploadThumbnail } from '../api/catalog-api.ts';
import type { Model } from '../api/types.ts';
import { h, uid } from '../ui/dom.ts';
import { formatBytes, formatCount, formatDate, isPointCloud } from '../ui/format.ts';
import { attempt, notifyError, notifyInfo } from '../ui/notify.ts';
import { createMetadataForm } from './model-metadata-form.ts';

/** How long to wait for a regenerated thumbnail before telling the person it is still queued. */
const REGENERATE_WAIT_MS = 60000;
const REGENERATE_POLL_MS = 2000;

/** Callbacks of {@link createModelDetails}. */
export interface ModelDetailsHandlers {
  onUpdated: (model: Model) => void;
  /** The model was sent back to conversion (its unit or up axis changed); the view must follow it again. */
  onReprocessing: (model: Model) => void;
  onDeleted: () => void;
}

/** The details section and a function stopping its timers. */
export interface ModelDetails {
  element: HTMLElement;
  /** Shows a newer state of the model (its thumbnail and facts after a conversion). */
  update: (model: Model) => void;
  dispose: () => void;
}

/** Builds the details section of `model`. */
export function createModelDetails(initial: Model, handlers: ModelDetailsHandlers): ModelDetails {
  let model = initial;
  let waitTimer: ReturnType<typeof setTimeout> | undefined;
  // Built first, so its fields take the first ids as they always have; it calls `show` only once saved.
  const form = createMetadataForm(model, { current: () => model, show: (next) => show(next), handlers });
  const thumbId = uid('thumbnail-file');
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
      // A point cloud is counted in points (its vertices), not in its zero triangles.
      isPointCloud(model)
        ? ['Points', formatCount(model.vertex_count)]
        : ['Triangles', formatCount(model.triangle_count)],
      ['Vertices', formatCount(model.vertex_count)],
      ['Parts', formatCount(model.part_count)],
      ...deliveryFacts(model),
      ...sourceFrameFacts(model),
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
            if (!sameFile(next.thumbnail_url, before)) {
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
  return { element, update: show, dispose: () => clearTimeout(waitTimer) };
}

/** The facts the converter recorded about the source's own frame, when it knew them. */
function sourceFrameFacts(model: Model): [string, string][] {
  const rows: [string, string][] = [];
  if (model.source_unit && model.source_unit !== 'unknown') rows.push(['Source unit', model.source_unit]);
  if (model.source_up_axis && model.source_up_axis !== 'unknown')
    rows.push(['Source up axis', model.source_up_axis]);
  return rows;
}

/** How the viewer gets a converted model: streamed as 3D Tiles (the catalog's `tileset_url`) or whole, by level. */
function deliveryFacts(model: Model): [string, string][] {
  if (model.status !== 'completed') return [];
  return [['Delivery', model.tileset_url ? 'Streamed as 3D Tiles' : 'Whole, by level of detail']];
}
