/**
 * The parts tree in compare mode: each part marked with what happened to it, a filter by change, and the removed
 * parts (which the shown version no longer has), which the tree lists in a folder at its end so they can be found
 * and picked.
 */
import { h, uid } from '../ui/dom.ts';
import {
  DIFF_STATES,
  describeState,
  diffHex,
  type DiffState,
  type PartDiffState,
} from '../viewer/diff-colors.ts';

/** The change filter's field and what it keeps. */
export interface TreeChangeFilter {
  /** The "Show" field; hidden outside compare mode. */
  field: HTMLElement;
  /** Enters compare mode with the diff's states (null leaves it). */
  set(states: Map<string, PartDiffState> | null): void;
  /** The removed parts, by group id, for the tree's last folder (none outside compare mode). */
  removed(): [string, PartDiffState][];
  /** Whether a filter by change is chosen. */
  filtering(): boolean;
  /** Whether the part passes the filter (always, outside compare mode). */
  keeps(groupId: string): boolean;
  /** Marks a part's button with its change (its colour and title), or clears the mark outside compare mode. */
  mark(button: HTMLElement, groupId: string): void;
}

/** Builds the filter; `refilter` runs when its choice changes. */
export function createTreeChangeFilter(refilter: () => void): TreeChangeFilter {
  let states: Map<string, PartDiffState> | null = null;
  const selectId = uid('change-filter');
  const select = h(
    'select',
    { id: selectId, class: 'change-filter', onchange: refilter },
    h('option', { value: '' }, 'Every part'),
    DIFF_STATES.map((state) => h('option', { value: state }, state[0].toUpperCase() + state.slice(1))),
  );
  const field = h('div', { class: 'field change-filter-field', hidden: true }, [
    h('label', { for: selectId }, 'Show'),
    select,
  ]);
  return {
    field,
    set(next) {
      states = next;
      field.hidden = next === null;
      if (next === null) select.value = '';
    },
    removed: () => [...(states ?? [])].filter(([, entry]) => entry.state === 'removed'),
    filtering: () => states !== null && select.value !== '',
    keeps(groupId) {
      const wanted = select.value as DiffState | '';
      return !states || !wanted || states.get(groupId)?.state === wanted;
    },
    mark(button, groupId) {
      const entry = states?.get(groupId);
      if (entry) {
        button.dataset.change = entry.state;
        button.title = `${groupId}: ${describeState(entry)}`;
        button.style.borderLeftColor = diffHex(entry.state);
      } else {
        delete button.dataset.change;
        button.title = groupId;
        button.style.borderLeftColor = '';
      }
    },
  };
}
