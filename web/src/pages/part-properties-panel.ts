/** The properties of the selected part, as its source file gave them: one collapsible table per property set. */
import { getPart } from '../api/catalog-api.ts';
import type { PartWithProperties } from '../api/types.ts';
import { h } from '../ui/dom.ts';

/** The panel and the call that points it at a new selection. */
export interface PropertiesPanel {
  element: HTMLElement;
  show: (selection: ReadonlySet<string>) => void;
}

type PropertyValue = PartWithProperties['properties'][string][string];

/** A value as text: booleans as Yes/No, a value with a unit followed by it. */
function valueText(value: PropertyValue): string {
  if (typeof value === 'object') return `${valueText(value.value)} ${value.unit}`;
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return String(value);
}

/** Builds the panel for one model; each selection of a single part reads that part's properties. */
export function createPropertiesPanel(modelId: string): PropertiesPanel {
  const body = h('div', { class: 'part-properties', 'aria-live': 'polite' });
  let asked = 0;
  const say = (text: string) => body.replaceChildren(h('p', { class: 'hint' }, text));
  const render = (part: PartWithProperties) => {
    const sets = Object.entries(part.properties);
    if (sets.length === 0) {
      say(`${part.name}: the file gives no properties for this part.`);
      return;
    }
    body.replaceChildren(
      h('p', { class: 'properties-of' }, part.name),
      ...sets.map(([setName, values]) =>
        h(
          'details',
          { class: 'property-set', open: true, 'data-set': setName },
          h('summary', {}, setName),
          h(
            'table',
            {},
            h(
              'tbody',
              {},
              Object.entries(values).map(([name, value]) =>
                h('tr', {}, h('th', { scope: 'row' }, name), h('td', {}, valueText(value))),
              ),
            ),
          ),
        ),
      ),
    );
  };
  return {
    element: body,
    show: (selection) => {
      const request = ++asked;
      if (selection.size !== 1) {
        say(
          selection.size === 0 ? 'Select a part to see its properties.' : `${selection.size} parts selected.`,
        );
        return;
      }
      const [groupId] = selection;
      say('Reading properties…');
      getPart(modelId, groupId!).then(
        (part) => {
          // A later selection may have answered first.
          if (request === asked) render(part);
        },
        (error: unknown) => {
          if (request === asked)
            say(`Properties could not be read: ${error instanceof Error ? error.message : String(error)}`);
        },
      );
    },
  };
}
