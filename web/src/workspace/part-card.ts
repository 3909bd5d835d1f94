/**
 * The card of the selected part: its name and properties, opened over the view's corner (a bottom sheet on a
 * phone) whenever the selection changes to something, so picking a part in the view brings its facts into sight
 * without scrolling and without moving or resizing anything. Closing it leaves the selection alone; the next pick
 * opens it again. It steps aside while every selected part is hidden, as there is nothing of them to look at.
 */
import { h } from '../ui/dom.ts';
import type { PropertiesPanel } from '../pages/part-properties-panel.ts';

/** The card and the calls that keep it in step with the selection and the hidden parts. */
export interface PartCard {
  element: HTMLElement;
  show: (selection: ReadonlySet<string>) => void;
  /** The hidden parts changed. */
  setHidden: (hidden: ReadonlySet<string>) => void;
}

/** Builds the card around `properties`; `nameOf` gives a part's name by its group id. */
export function createPartCard(properties: PropertiesPanel, nameOf: (groupId: string) => string): PartCard {
  const title = h('h2', { class: 'part-card-title' }, 'Properties');
  let selected: ReadonlySet<string> = new Set();
  let hidden: ReadonlySet<string> = new Set();
  let closed = false;
  const place = (): void => {
    element.hidden = closed || selected.size === 0 || [...selected].every((groupId) => hidden.has(groupId));
  };
  const element = h(
    'section',
    { class: 'card part-card properties-section', 'aria-label': 'Selected part', hidden: true },
    h(
      'div',
      { class: 'part-card-head' },
      title,
      h(
        'button',
        {
          type: 'button',
          class: 'part-card-close',
          'aria-label': 'Close the part card',
          onclick: () => {
            closed = true;
            place();
          },
        },
        '×',
      ),
    ),
    properties.element,
  );
  return {
    element,
    show: (selection) => {
      properties.show(selection);
      const [first] = selection;
      title.textContent =
        selection.size === 1 && first !== undefined ? nameOf(first) : `${selection.size} parts selected`;
      selected = selection;
      closed = false;
      place();
    },
    setHidden: (next) => {
      hidden = next;
      place();
    },
  };
}
