/**
 * The Versions card of the model page: every version with its number, status, counts, diff against the version it
 * was based on, date and author; a new version sent from its files (bytes, then conversion progress); and per version
 * Open (into the view), Restore (make it current again), Convert again (a failed one) and Delete. Below it the
 * compare controls.
 */
import {
  deleteVersion,
  listVersions,
  reprocessVersion,
  restoreVersion,
  uploadVersion,
  type DiffCounts,
  type ModelVersion,
} from '../api/versions-api.ts';
import type { Model } from '../api/types.ts';
import { h, uid } from '../ui/dom.ts';
import { formatBytes, formatCount, formatDate } from '../ui/format.ts';
import { attempt, notifyInfo } from '../ui/notify.ts';
import { statusBadge } from '../ui/status-badge.ts';
import { createCompareControls } from './compare-controls.ts';
import { createVersionView, type VersionViewContext } from './version-view.ts';
import { REVEAL_CARD } from '../workspace/sidebar-tabs.ts';
import './versions.css';

/** How often the list is read again while a version converts. */
const POLL_MS = 1000;

/** What the card needs from its page: what the version view acts on, and where to report a new current version. */
export interface VersionsPanelOptions extends VersionViewContext {
  /** The current version changed (one completed or was restored): the page opens the model afresh. */
  onCurrentChanged: () => void;
}

/** The card and what the workspace tells it. */
export interface VersionsPanel {
  element: HTMLElement;
  /** The selection changed: the compare readout names what happened to the selected part. */
  selectionChanged: (selection: ReadonlySet<string>) => void;
  /** Sends `files` as the next version (as the card's form would), showing the card for its progress. */
  sendFiles: (files: File[]) => void;
  dispose: () => void;
}

/** A version's diff against the one it was based on, in words. */
function diffWords(counts: DiffCounts | null, basedOn: number | null): string {
  if (!counts || basedOn === null) return '';
  return `vs v${basedOn}: ${counts.changed} changed, ${counts.added} added, ${counts.removed} removed`;
}

/** True while a version is still converting. */
const converting = (version: ModelVersion): boolean =>
  version.status === 'pending' || version.status === 'processing';

/** Builds the card and the version view it drives; it reads the versions itself and follows the ones converting. */
export function createVersionsPanel(options: VersionsPanelOptions): VersionsPanel {
  const { model } = options;
  const versionView = createVersionView(options);
  let versions: ModelVersion[] = [];
  let current: number | null = null;
  let shown: number | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let disposed = false;
  const list = h('ol', { class: 'version-list', 'aria-live': 'polite' });
  const compare = createCompareControls({
    versionView,
    onCompared: (b) => markShown(b.number),
  });

  const refresh = async (): Promise<void> => {
    clearTimeout(timer);
    const read = await listVersions(model.id);
    if (disposed) return;
    versions = read;
    const now = versions.find((version) => version.current)?.number ?? null;
    if (current !== null && now !== null && now !== current) {
      options.onCurrentChanged();
      return;
    }
    current = now;
    shown ??= now;
    render();
    compare.setVersions(versions);
    if (versions.some(converting))
      timer = setTimeout(() => attempt('Reading the versions', refresh), POLL_MS);
  };

  const markShown = (number: number): void => {
    shown = number;
    render();
  };

  const act = (label: string, action: () => Promise<unknown>): void =>
    attempt(label, async () => {
      await action();
      await refresh();
    });

  const actions: RowActions = {
    open: (version) =>
      attempt(`Opening version ${version.number}`, async () => {
        markShown(version.number);
        compare.stopped();
        await versionView.open(version);
      }),
    restore: (version) =>
      act(`Restoring version ${version.number}`, () => restoreVersion(model.id, version.number)),
    reprocess: (version) =>
      act(`Converting version ${version.number} again`, () => reprocessVersion(model.id, version.number)),
    remove: (version) => {
      if (!confirm(`Delete version ${version.number}? Its files are removed for good.`)) return;
      act(`Deleting version ${version.number}`, async () => {
        await deleteVersion(model.id, version.number);
        notifyInfo(`Version ${version.number} deleted`);
      });
    },
  };
  const render = (): void =>
    list.replaceChildren(
      ...versions.map((version) => versionRow(version, version.number === shown, actions)),
    );

  const upload = createVersionUpload(model, () => attempt('Reading the versions', refresh));
  const element = h(
    'section',
    { class: 'card versions-section' },
    h('h2', {}, 'Versions'),
    list,
    upload.element,
    compare.element,
  );
  attempt('Reading the versions', refresh);
  return {
    element,
    selectionChanged: compare.selectionChanged,
    sendFiles: (files) => {
      element.dispatchEvent(new CustomEvent(REVEAL_CARD, { bubbles: true }));
      upload.send(files);
    },
    dispose: () => {
      disposed = true;
      clearTimeout(timer);
      versionView.dispose();
    },
  };
}

/** What the buttons of a version's row do. */
interface RowActions {
  open: (version: ModelVersion) => void;
  restore: (version: ModelVersion) => void;
  reprocess: (version: ModelVersion) => void;
  remove: (version: ModelVersion) => void;
}

/** One version in the list: what it is, how it compares with the one before, and what can be done with it. */
function versionRow(version: ModelVersion, shown: boolean, actions: RowActions): HTMLElement {
  const completed = version.status === 'completed';
  const facts = [
    version.original_filename,
    formatBytes(version.file_size),
    completed ? `${formatCount(version.triangle_count)} tri` : null,
    completed ? `${formatCount(version.part_count)} parts` : null,
  ].filter(Boolean);
  const button = (name: string, label: string, action: (version: ModelVersion) => void): HTMLElement =>
    h('button', { type: 'button', class: `version-${name}`, onclick: () => action(version) }, label);
  return h(
    'li',
    {
      class: 'version-row',
      'data-number': version.number,
      'data-status': version.status,
      'data-current': String(version.current),
      'aria-current': shown ? 'true' : undefined,
    },
    h(
      'div',
      { class: 'version-head' },
      h('strong', {}, `v${version.number}`),
      statusBadge(version),
      version.current ? h('span', { class: 'badge current-version' }, 'current') : null,
      shown ? h('span', { class: 'hint' }, 'shown') : null,
    ),
    h('small', { class: 'version-facts' }, facts.join(' · ')),
    version.diff_counts
      ? h('small', { class: 'version-diff' }, diffWords(version.diff_counts, version.based_on))
      : null,
    h(
      'small',
      { class: 'version-when' },
      `${formatDate(version.created_at)}${version.author ? ` · ${version.author}` : ''}`,
    ),
    version.error ? h('small', { class: 'error-text' }, version.error) : null,
    h(
      'div',
      { class: 'button-row' },
      completed ? button('open', 'Open', actions.open) : null,
      completed && !version.current ? button('restore', 'Restore', actions.restore) : null,
      // The current version failing is the model's own conversion, which the model's Reprocess converts again.
      version.status === 'failed' && !version.current
        ? button('reprocess', 'Convert again', actions.reprocess)
        : null,
      version.current ? null : button('delete danger', 'Delete', actions.remove),
    ),
  );
}

/**
 * The form sending a new version from its files: one model file, or a model with its resources chosen together
 * (an OBJ with its MTL, a glTF with its .bin), as the model upload takes them; the bytes' progress, then the list
 * follows its conversion.
 */
function createVersionUpload(
  model: Model,
  onSent: () => void,
): { element: HTMLElement; send: (files: File[]) => void } {
  const inputId = uid('version-file');
  const input = h('input', { id: inputId, type: 'file', class: 'version-file', multiple: true });
  const bar = h('progress', { class: 'version-progress', max: 100, value: 0, hidden: true });
  const status = h('small', { class: 'version-upload-status', 'aria-live': 'polite' });
  const sendButton = h('button', { type: 'submit', class: 'primary' }, 'Upload new version');
  const send = (files: File[]): void => {
    if (files.length === 0) {
      status.textContent = 'Choose the file of the new version first.';
      return;
    }
    if (sendButton.disabled) {
      status.textContent = 'A version is being sent; wait for it before sending another.';
      return;
    }
    sendButton.disabled = true;
    bar.hidden = false;
    status.textContent = files.length === 1 ? `Sending ${files[0].name}…` : `Sending ${files.length} files…`;
    attempt('Uploading the new version', async () => {
      try {
        const version = await uploadVersion(
          model.id,
          files,
          {},
          { onProgress: (fraction) => (bar.value = Math.round(fraction * 100)) },
        );
        status.textContent = `Version ${version.number} sent; it is converting.`;
        input.value = '';
        onSent();
      } catch (error) {
        status.textContent = '';
        throw error;
      } finally {
        sendButton.disabled = false;
        bar.hidden = true;
      }
    });
  };
  const element = h(
    'form',
    {
      class: 'version-upload',
      onsubmit: (event: Event) => {
        event.preventDefault();
        send(Array.from(input.files ?? []));
      },
    },
    h('label', { for: inputId }, 'New version'),
    input,
    h(
      'small',
      { class: 'hint' },
      'A model with its files (an OBJ with its MTL, a glTF with its .bin): choose them together, or drop them on the view.',
    ),
    h('div', { class: 'button-row' }, sendButton, bar),
    status,
  );
  return { element, send };
}
