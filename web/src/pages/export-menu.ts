/**
 * The model page's Export menu: each format the service writes, at a chosen level of detail, with or without the
 * bound materials. The service makes a file in the background the first time (202), so the menu asks again until
 * the file is ready, then downloads it from its signed `/files/` URL (which needs no token while it lasts).
 */
import {
  DEFAULT_EXPORT_UNIT,
  EXPORT_FILES,
  EXPORT_FORMATS,
  UNIT_FORMATS,
  type ExportFormat,
  type ExportUnit,
} from '../../../src/writers/export-formats.ts';
import { ApiError, errorFromBody } from '../api/api-error.ts';
import { getToken } from '../api/token.ts';
import type { Model } from '../api/types.ts';
import { h } from '../ui/dom.ts';
import { formatBytes } from '../ui/format.ts';
import { dropDown } from '../ui/keep-in-viewport.ts';
import { foldedLevels } from '../viewer/served-levels.ts';
import { lodDescriber } from './lod-description.ts';

/** Longest the menu waits for one export before telling the user to try again later. */
const GIVE_UP_MS = 10 * 60_000;

/** The units the menu offers for STL and 3MF, the ones people print in; the API takes a few more. */
const MENU_UNITS: readonly { unit: ExportUnit; label: string }[] = [
  { unit: 'millimeter', label: 'mm' },
  { unit: 'centimeter', label: 'cm' },
  { unit: 'meter', label: 'm' },
  { unit: 'inch', label: 'in' },
];

/** What the export route answers in JSON (`Accept: application/json`). */
interface ExportState {
  status: 'queued' | 'running' | 'ready' | 'failed';
  url: string | null;
  file_name: string;
  size: number | null;
}

/** Asks for an export until it is ready; `onWait` hears each 202's status. Rejects with the server's message. */
async function fetchExport(
  modelId: string,
  query: URLSearchParams,
  signal: AbortSignal,
  onWait: (status: string) => void,
): Promise<ExportState> {
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    const response = await fetch(`/api/models/${encodeURIComponent(modelId)}/export?${query}`, {
      headers: { 'X-API-Token': getToken() ?? '', Accept: 'application/json' },
      signal,
    });
    const body = (await response.json().catch(() => undefined)) as { data?: ExportState } | undefined;
    if (!response.ok) throw errorFromBody(response.status, body, 'Export failed');
    if (response.status === 200 && body?.data?.url) return body.data;
    if (Date.now() > deadline) throw new ApiError(0, 'The export is taking long; try again in a while');
    onWait(body?.data?.status ?? 'queued');
    const seconds = Number(response.headers.get('retry-after')) || 1;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }
}

/** Builds the menu for a converted model; `dispose` stops any export still being waited for. */
export function createExportMenu(model: Model): { element: HTMLElement; dispose: () => void } {
  const controller = new AbortController();
  const describe = lodDescriber(model);
  const folded = foldedLevels(model.lods);
  const lod = h(
    'select',
    { 'aria-label': 'Level of detail' },
    ...model.lods.map((level) => {
      // A level that could not be reduced exports the same geometry as the one it copies: say so.
      const copies = [...folded].find(([, copied]) => copied.includes(level))?.[0];
      const text = copies === undefined ? describe(level) : `same as LOD ${copies} (not reduced)`;
      return h('option', { value: String(level.level) }, `LOD ${level.level} · ${text}`);
    }),
  );
  const bound = h('input', { type: 'checkbox', checked: true });
  const unit = h(
    'select',
    { 'aria-label': 'STL and 3MF measured in' },
    ...MENU_UNITS.map((choice) =>
      h('option', { value: choice.unit, selected: choice.unit === DEFAULT_EXPORT_UNIT }, choice.label),
    ),
  );
  const status = h('p', { class: 'export-status', role: 'status' });
  const buttons = EXPORT_FORMATS.map((format) =>
    h(
      'button',
      { type: 'button', 'data-format': format, onclick: () => void run(format) },
      EXPORT_FILES[format].label,
    ),
  );

  async function run(format: ExportFormat): Promise<void> {
    for (const button of buttons) button.disabled = true;
    status.textContent = `Preparing ${EXPORT_FILES[format].label}…`;
    const query = new URLSearchParams({
      format,
      lod: lod.value,
      materials: bound.checked ? 'bound' : 'source',
    });
    // The other formats are always in metres; the API refuses a unit for them.
    if (UNIT_FORMATS.includes(format)) query.set('unit', unit.value);
    try {
      const ready = await fetchExport(model.id, query, controller.signal, (state) => {
        status.textContent = `${EXPORT_FILES[format].label}: ${state === 'running' ? 'being written' : 'queued'}…`;
      });
      const link = h(
        'a',
        { href: ready.url ?? '', download: ready.file_name },
        `Download ${ready.file_name}`,
      );
      status.replaceChildren(link, ready.size === null ? '' : ` (${formatBytes(ready.size)})`);
      link.click();
    } catch (error) {
      if (controller.signal.aborted) return;
      status.textContent = error instanceof Error ? error.message : String(error);
    } finally {
      for (const button of buttons) button.disabled = false;
    }
  }

  const panel = h(
    'div',
    { class: 'card menu-panel export-panel' },
    lod,
    h('label', {}, bound, ' Bake in the bound materials'),
    h('label', { class: 'export-unit' }, 'STL and 3MF in ', unit),
    ...buttons,
    status,
  );
  const element = h('details', { class: 'export-menu drop-down' }, h('summary', {}, 'Export'), panel);
  const stopPlacing = dropDown(element, panel);
  return {
    element,
    dispose: () => {
      controller.abort();
      stopPlacing();
    },
  };
}
