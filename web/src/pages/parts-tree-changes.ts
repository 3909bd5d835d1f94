/**
 * The parts tree in compare mode: each part marked with what happened to it, a filter by change, and the removed
 * parts (which the shown version no longer has) listed at the end of the tree so they can be found and picked.
 */
import { h, uid } from '../ui/dom.ts';
import {
  DIFF_STATES,
  describeState,
  diffHex,
  type DiffState,
  type PartDiffState,
} from '../viewer/diff-colors.ts';

/** The change filter's field, the tree's list of removed parts, and what the filter keeps. */
export interface TreeChangeFilter {
  /** The "Show" field; hidden outside compare mode. */
  field: HTMLElement;
  /** Where the removed parts are listed, at the end of the tree; empty outside compare mode. */
  removedList: HTMLElement;
  /** Enters compare mode with the diff's states (null leaves it); marks `buttons` by their part's state. */
  set(states: Map<string, PartDiffState> | null, buttons: Map<string, HTMLButtonElement>): void;
  /** Whether the part passes the filter (always, outside compare mode). */
  keeps(groupId: string): boolean;
}

/** Builds the filter; `refilter` runs when its choice changes, `onSelect` when a removed part is clicked. */
export function createTreeChangeFilter(
  refilter: () => void,
  onSelect: (groupId: string, additive: boolean) => void,
): TreeChangeFilter {
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
  const removedList = h('ul', { class: 'tree-level removed-parts' });

  const removedItem = (groupId: string, entry: PartDiffState): HTMLElement =>
    h(
      'li',
      {},
      h(
        'button',
        {
          type: 'button',
          class: 'part-button',
          'aria-pressed': 'false',
          'data-group-id': groupId,
          'data-change': 'removed',
          style: `border-left-color:${diffHex('removed')}`,
          title: `${groupId}: removed`,
          onclick: (event: Event) => {
            const mouse = event as MouseEvent;
            onSelect(groupId, mouse.shiftKey || mouse.ctrlKey || mouse.metaKey);
          },
        },
        h('span', { class: 'swatch', 'aria-hidden': 'true' }),
        h('span', { class: 'part-name' }, entry.name || '(unnamed)'),
        h('small', {}, 'removed'),
      ),
    );

  return {
    field,
    removedList,
    set(next, buttons) {
      states = next;
      field.hidden = next === null;
      if (next === null) select.value = '';
      for (const [groupId, button] of buttons) {
        const entry = next?.get(groupId);
        if (entry) {
          button.dataset.change = entry.state;
          button.title = `${groupId}: ${describeState(entry)}`;
          button.style.borderLeftColor = diffHex(entry.state);
        } else {
          delete button.dataset.change;
          button.title = groupId;
          button.style.borderLeftColor = '';
        }
      }
      const removed = [...(next ?? [])].filter(([, entry]) => entry.state === 'removed');
      removedList.replaceChildren(
        ...(removed.length === 0
          ? []
          : [
              h(
                'li',
                {},
                h(
                  'details',
                  { open: true },
                  h('summary', {}, `Removed (${removed.length})`),
                  h('ul', { class: 'tree-level' }, ...removed.map(([id, entry]) => removedItem(id, entry))),
                ),
              ),
            ]),
      );
    },
    keeps(groupId) {
      const wanted = select.value as DiffState | '';
      return !states || !wanted || states.get(groupId)?.state === wanted;
    },
  };
}
