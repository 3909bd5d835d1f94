/** A filter of the parts tree by one property: `Set.Name=value`, answered by the catalog's `where=`. */
import { ApiError } from '../api/api-error.ts';
import { findParts } from '../api/catalog-api.ts';
import { h, uid } from '../ui/dom.ts';

/** Builds the filter form; `onMatches` gets the group ids found, or null when the filter is cleared. */
export function createPropertyFilter(
  modelId: string,
  onMatches: (matches: ReadonlySet<string> | null) => void,
): HTMLElement {
  const inputId = uid('property-filter');
  const input = h('input', {
    id: inputId,
    type: 'search',
    placeholder: 'Property: Pset_WallCommon.IsExternal=true',
    autocomplete: 'off',
    spellcheck: false,
  });
  const status = h('small', { class: 'property-filter-status', 'aria-live': 'polite' });
  let asked = 0;
  const apply = async (): Promise<void> => {
    const condition = input.value.trim();
    const request = ++asked;
    if (condition === '') {
      status.textContent = '';
      onMatches(null);
      return;
    }
    status.textContent = 'Filtering…';
    try {
      const found = await findParts(modelId, condition);
      if (request !== asked) return;
      status.textContent = `${found.length} parts have ${condition}`;
      onMatches(new Set(found.map((part) => part.group_id)));
    } catch (error) {
      if (request !== asked) return;
      // A condition the catalog cannot read leaves the tree as it was, with the catalog's reason.
      status.textContent = error instanceof ApiError ? error.message : 'The filter could not be applied';
    }
  };
  // Enter submits the form; the search field's own event is only wanted for its clear button.
  input.addEventListener('search', () => {
    if (input.value === '') void apply();
  });
  return h(
    'form',
    {
      class: 'field property-filter',
      onsubmit: (event: Event) => {
        event.preventDefault();
        void apply();
      },
    },
    // One row with no visible label, so the tree and the materials below stay in sight at 1280×800.
    h('label', { for: inputId, class: 'visually-hidden' }, 'Filter by property (Set.Name=value)'),
    h('div', { class: 'button-row' }, input, h('button', { type: 'submit' }, 'Filter')),
    status,
  );
}
