/** Links to download the original upload and every level of detail, with their sizes. */
import type { Lod, Model } from '../api/types.ts';
import { h } from '../ui/dom.ts';
import { formatBytes } from '../ui/format.ts';
import { lodDescriber } from './lod-description.ts';

/** A file name for LOD `level` of `model`, after the upload's name. */
function lodFileName(model: Model, level: number): string {
  const base = model.original_filename.replace(/\.[^.]*$/, '') || 'model';
  return `${base}-lod${level}.glb`;
}

/** The downloads list: the original first, then each LOD as GLB. */
export function createDownloads(model: Model, lods: Lod[]): HTMLElement {
  const describe = lodDescriber(model);
  return h(
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
}
