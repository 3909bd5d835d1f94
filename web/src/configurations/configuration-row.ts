/** One configuration in the panel's list: its picture and name, which show it, and what can be done with it. */
import type { Configuration } from '../api/configurations-api.ts';
import { h } from '../ui/dom.ts';

/** What the row's buttons do. */
export interface RowActions {
  show: (configuration: Configuration | null) => void;
  apply: (configuration: Configuration) => void;
  rename: (configuration: Configuration, row: HTMLElement) => void;
  remove: (configuration: Configuration) => void;
  /** A picture failed to load: drawn again since the list was read, its old file is gone. */
  pictureMissing: () => void;
}

/** The button that shows a configuration (null: the present bindings), pressed while it is shown. */
function showButton(configuration: Configuration | null, shown: boolean, actions: RowActions): HTMLElement {
  const name = configuration?.name ?? 'None';
  const thumbnail = configuration?.thumbnail_url
    ? h('img', {
        class: 'configuration-thumb',
        src: configuration.thumbnail_url,
        alt: '',
        loading: 'lazy',
        onerror: actions.pictureMissing,
      })
    : h('span', { class: 'configuration-thumb empty', 'aria-hidden': 'true' });
  const facts = configuration
    ? `${configuration.binding_count} part${configuration.binding_count === 1 ? '' : 's'} bound`
    : "The model's present bindings";
  return h(
    'button',
    {
      type: 'button',
      class: 'configuration-show',
      'aria-pressed': String(shown),
      'aria-label': configuration ? `Show “${name}”` : 'Show no configuration',
      onclick: () => actions.show(configuration),
    },
    thumbnail,
    h('span', { class: 'configuration-text' }, h('strong', {}, name), h('small', {}, facts)),
  );
}

/** A row of the list; `writable` puts in the buttons that change the configuration. */
export function configurationRow(
  configuration: Configuration | null,
  shown: boolean,
  writable: boolean,
  actions: RowActions,
): HTMLElement {
  const row = h('li', {
    class: 'configuration-row',
    'data-configuration-id': configuration?.id ?? '',
    'aria-current': shown ? 'true' : undefined,
  });
  row.append(showButton(configuration, shown, actions));
  if (configuration && writable) {
    const button = (label: string, name: string, onclick: () => void, extra = ''): HTMLElement =>
      h(
        'button',
        {
          type: 'button',
          class: `configuration-${name}${extra}`,
          'aria-label': `${label} “${configuration.name}”`,
          onclick,
        },
        label,
      );
    row.append(
      h(
        'div',
        { class: 'button-row configuration-actions' },
        button('Apply', 'apply', () => actions.apply(configuration)),
        button('Rename', 'rename', () => actions.rename(configuration, row)),
        button('Delete', 'delete', () => actions.remove(configuration), ' danger'),
      ),
    );
  }
  return row;
}
