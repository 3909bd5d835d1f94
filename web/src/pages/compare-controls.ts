/**
 * Compare mode's controls in the Versions card: pick an older version `a` and a newer `b`, compare, read the
 * legend with the diff's counts, see what happened to the selected part, and stop comparing (the current version
 * comes back). The readout carries `data-state` and `data-what` for scripts and tests.
 */
import type { ModelVersion, VersionDiff } from '../api/versions-api.ts';
import { h, uid } from '../ui/dom.ts';
import { attempt } from '../ui/notify.ts';
import { DIFF_STATES, describeState, diffHex } from '../viewer/diff-colors.ts';
import type { VersionView } from './version-view.ts';

/** What the controls need. */
export interface CompareControlsOptions {
  versionView: VersionView;
  /** A comparison is drawn; `b` is the version the view shows. */
  onCompared: (b: ModelVersion) => void;
}

/** The controls and what the card tells them. */
export interface CompareControls {
  element: HTMLElement;
  /** The versions to choose from (only completed ones can be compared). */
  setVersions: (versions: ModelVersion[]) => void;
  selectionChanged: (selection: ReadonlySet<string>) => void;
  /** Another version was opened: compare mode is over. */
  stopped: () => void;
}

/** Builds the compare controls. */
export function createCompareControls(options: CompareControlsOptions): CompareControls {
  const { versionView } = options;
  let completed: ModelVersion[] = [];
  const fromId = uid('compare-from');
  const toId = uid('compare-to');
  const from = h('select', { id: fromId, class: 'compare-from' });
  const to = h('select', { id: toId, class: 'compare-to' });
  const legend = h('ul', { class: 'compare-legend', hidden: true });
  const readout = h('output', { class: 'compare-readout', 'aria-live': 'polite' });
  const stop = h('button', { type: 'button', class: 'compare-stop', hidden: true }, 'Stop comparing');
  const start = h('button', { type: 'button', class: 'compare-start' }, 'Compare');

  const byNumber = (select: HTMLSelectElement): ModelVersion | undefined =>
    completed.find((version) => String(version.number) === select.value);

  const showLegend = (diff: VersionDiff): void => {
    legend.hidden = false;
    legend.replaceChildren(
      ...DIFF_STATES.map((state) =>
        h(
          'li',
          { 'data-state': state, 'data-count': diff.counts[state] },
          h('span', { class: 'swatch', style: `background:${diffHex(state)}`, 'aria-hidden': 'true' }),
          `${diff.counts[state]} ${state}`,
        ),
      ),
    );
  };

  const stopped = (): void => {
    legend.hidden = true;
    stop.hidden = true;
    readout.textContent = '';
    delete readout.dataset.state;
    delete readout.dataset.what;
  };

  start.addEventListener('click', () => {
    const a = byNumber(from);
    const b = byNumber(to);
    if (!a || !b || a === b) {
      readout.textContent = 'Pick two different completed versions.';
      return;
    }
    attempt(`Comparing version ${a.number} with ${b.number}`, async () => {
      stopped();
      const diff = await versionView.compare(a, b);
      showLegend(diff);
      stop.hidden = false;
      options.onCompared(b);
    });
  });
  stop.addEventListener('click', () => {
    const current = completed.find((version) => version.current);
    stopped();
    if (current) attempt('Opening the current version', () => versionView.open(current));
  });

  const fill = (select: HTMLSelectElement, wanted: number | undefined): void => {
    const kept = select.value;
    select.replaceChildren(
      ...completed.map((version) =>
        h(
          'option',
          { value: String(version.number) },
          `v${version.number}${version.current ? ' (current)' : ''}`,
        ),
      ),
    );
    select.value = completed.some((version) => String(version.number) === kept) ? kept : String(wanted ?? '');
  };

  return {
    element: h(
      'div',
      { class: 'compare-box' },
      h('h3', {}, 'Compare'),
      h(
        'div',
        { class: 'compare-pick' },
        h('label', { for: fromId }, 'From'),
        from,
        h('label', { for: toId }, 'to'),
        to,
        start,
        stop,
      ),
      legend,
      readout,
    ),
    setVersions: (versions) => {
      completed = versions.filter((version) => version.status === 'completed');
      // Newest first: by default the newest is compared with the one before it.
      fill(to, completed[0]?.number);
      fill(from, completed[1]?.number ?? completed[0]?.number);
      start.disabled = completed.length < 2;
    },
    selectionChanged: (selection) => {
      if (legend.hidden) return;
      const [groupId] = selection;
      const entry = groupId === undefined ? undefined : versionView.stateOf(groupId);
      if (!entry) {
        readout.textContent = selection.size === 0 ? 'Click a part to see what changed.' : '';
        delete readout.dataset.state;
        delete readout.dataset.what;
        return;
      }
      readout.dataset.state = entry.state;
      readout.dataset.what = entry.what.join(',');
      readout.textContent = `${entry.name || groupId}: ${describeState(entry)}`;
    },
    stopped,
  };
}
