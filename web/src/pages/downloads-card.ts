/** Links to download the original upload and every level of detail, with their sizes. */
import { getModel } from '../api/catalog-api.ts';
import { expiresSoon } from '../api/file-urls.ts';
import type { Lod, Model } from '../api/types.ts';
import { h } from '../ui/dom.ts';
import { formatBytes } from '../ui/format.ts';
import { attempt } from '../ui/notify.ts';
import { lodDescriber } from './lod-description.ts';

/** A file name for LOD `level` of `model`, after the upload's name. */
function lodFileName(model: Model, level: number): string {
  const base = model.original_filename.replace(/\.[^.]*$/, '') || 'model';
  return `${base}-lod${level}.glb`;
}

/**
 * The links' URLs are signed for a while only: a click on one about to expire first asks the model again and
 * follows the fresh URL instead.
 */
function refreshBeforeFollowing(list: HTMLElement, modelId: string): void {
  list.addEventListener('click', (event) => {
    const link = (event.target as Element | null)?.closest('a');
    if (!link || !expiresSoon(link.href)) return;
    event.preventDefault();
    attempt('Preparing the download', async () => {
      const fresh = await getModel(modelId);
      for (const anchor of Array.from(list.querySelectorAll('a'))) {
        const level = anchor.dataset.level;
        const url =
          level === undefined
            ? fresh.original_url
            : fresh.lods.find((lod) => String(lod.level) === level)?.url;
        if (url) anchor.href = url;
      }
      link.click();
    });
  });
}

/** The downloads list: the original first, then each LOD as GLB. */
export function createDownloads(model: Model, lods: Lod[]): HTMLElement {
  const describe = lodDescriber(model);
  const list = h(
    'ul',
    { class: 'download-list' },
    h(
      'li',
      {},
      h(
        'a',
        { href: model.original_url, download: model.original_filename, class: 'download-original' },
        `Original (${model.format.toUpperCase()})`,
      ),
      h('small', {}, ` ${model.original_filename} · ${formatBytes(model.file_size)}`),
    ),
    [...lods]
      .sort((a, b) => a.level - b.level)
      .map((lod) =>
        h(
          'li',
          {},
          h(
            'a',
            { href: lod.url, download: lodFileName(model, lod.level), 'data-level': lod.level },
            `LOD ${lod.level} (GLB)`,
          ),
          h('small', {}, ` ${describe(lod)} · ${formatBytes(lod.size)}`),
        ),
      ),
  );
  refreshBeforeFollowing(list, model.id);
  return list;
}
