/**
 * The Configurations card of the model page: the model's configurations with their pictures; choosing one shows
 * its paint in the view (None gives the present bindings back), and while one is shown the materials panel's bind
 * writes to it. Write tokens also make one from the present paint, apply, rename and delete.
 */
import { createConfiguration, listConfigurations, type Configuration } from '../api/configurations-api.ts';
import { subscribeEvents } from '../api/events.ts';
import type { Model } from '../api/types.ts';
import type { WriteAccess } from '../pages/write-access.ts';
import { h } from '../ui/dom.ts';
import { attempt, notifyInfo } from '../ui/notify.ts';
import { showInAddress } from './configuration-address.ts';
import { createNameForm } from './configuration-name-form.ts';
import { createRowActions } from './configuration-actions.ts';
import { configurationRow } from './configuration-row.ts';
import './configurations.css';

/** What the panel needs from the workspace. */
export interface ConfigurationsPanelOptions {
  model: Model;
  access: WriteAccess;
  /** The configuration shown now (the address's at first), or null. */
  current: () => string | null;
  /** Paints the view as configuration `id` shows it (null: the model's present bindings). */
  show: (id: string | null) => void;
  /** The model's own bindings changed: a configuration was applied. */
  onApplied: () => void;
}

/** The card and its clean-up. */
export interface ConfigurationsPanel {
  element: HTMLElement;
  dispose: () => void;
}

/**
 * While a picture is still to be drawn, and for a few reads after a change (its picture is drawn again a moment
 * later, which no event tells), the list is read again this often, at most {@link PICTURE_TRIES} times in a row.
 */
const PICTURE_WAIT_MS = 3000;
const PICTURE_TRIES = 20;
/** Reads after a change, enough for the server's default delay before a picture and its drawing. */
const READS_AFTER_CHANGE = 4;

/** Builds the card for `options.model`. */
export function createConfigurationsPanel(options: ConfigurationsPanelOptions): ConfigurationsPanel {
  const { model, access } = options;
  let configurations: Configuration[] = [];
  let shown = options.current();
  let disposed = false;
  let pictureTries = 0;
  let readsAfterChange = 0;
  /** The list as last drawn, so a read that changed nothing draws nothing. */
  let drawn = '';
  /**
   * The row whose rename form is open: a redraw (a picture drawn, another client's change) keeps it as it is, with
   * what was typed, where it would otherwise close the form under the user's fingers.
   */
  let renaming: { id: string; row: HTMLElement } | undefined;
  let pictureTimer: ReturnType<typeof setTimeout> | undefined;
  const list = h('ul', { class: 'configuration-list', 'aria-label': 'Configurations' });
  const formSlot = h('div', { class: 'configuration-new' });
  const createButton = h(
    'button',
    { type: 'button', class: 'primary', onclick: () => askNewName() },
    'Create from current paint',
  );

  const show = (id: string | null): void => {
    if (id === shown) return;
    shown = id;
    showInAddress(model.id, id);
    options.show(id);
    render();
  };

  const refresh = async (): Promise<void> => {
    const read = await listConfigurations(model.id);
    if (disposed) return;
    configurations = read;
    // A configuration deleted meanwhile falls back to the present bindings (a stale link does before: the paint's
    // lookup finds no such configuration).
    const current = options.current();
    if (current !== shown) shown = current;
    if (shown && !configurations.some(({ id }) => id === shown)) {
      notifyInfo('The configuration shown no longer exists; showing the present bindings');
      show(null);
    }
    if (JSON.stringify([shown, configurations]) !== drawn) render();
    clearTimeout(pictureTimer);
    const drawing = configurations.some(({ thumbnail_url }) => !thumbnail_url) || readsAfterChange > 0;
    readsAfterChange = Math.max(0, readsAfterChange - 1);
    if (drawing && pictureTries++ < PICTURE_TRIES)
      pictureTimer = setTimeout(() => attempt('Reading the configurations', refresh), PICTURE_WAIT_MS);
  };
  const reread = (): void => {
    pictureTries = 0;
    attempt('Reading the configurations', refresh);
  };

  const askNewName = (): void => {
    const form = createNameForm({
      label: 'Name of the new configuration',
      submit: 'Create',
      save: (name) =>
        access.attempt('Creating the configuration', async () => {
          // The paint in sight: the configuration shown (over the model's bindings, as the new one will be too)
          // or the model's own.
          const made = await createConfiguration(model.id, name, shown ?? 'current');
          notifyInfo(`Configuration “${made.name}” created from the paint shown`);
          formSlot.replaceChildren();
          await refresh();
        }),
      cancel: () => formSlot.replaceChildren(),
    });
    formSlot.replaceChildren(form.element);
    form.focus();
  };

  const actions = createRowActions({
    modelId: model.id,
    access,
    shown: () => shown,
    show,
    refresh,
    renameOpened: (id, row) => (renaming = { id, row }),
    renameEnded: () => (renaming = undefined),
    render: () => render(),
    refreshSoon: () => {
      clearTimeout(pictureTimer);
      pictureTimer = setTimeout(() => attempt('Reading the configurations', refresh), PICTURE_WAIT_MS);
    },
    onApplied: options.onApplied,
  });

  function render(): void {
    drawn = JSON.stringify([shown, configurations]);
    const writable = access.canWrite;
    // A configuration deleted meanwhile, or a token that may no longer write, closes its rename form.
    if (!writable || !configurations.some(({ id }) => id === renaming?.id)) renaming = undefined;
    list.replaceChildren(
      configurationRow(null, shown === null, writable, actions),
      ...configurations.map((one) =>
        one.id === renaming?.id ? renaming.row : configurationRow(one, one.id === shown, writable, actions),
      ),
    );
    if (configurations.length === 0)
      list.append(h('li', { class: 'hint' }, 'No configurations yet: paint the parts, then create one.'));
  }

  const stopAccess = access.watch((allowed) => {
    createButton.hidden = !allowed;
    if (!allowed) formSlot.replaceChildren();
    render();
  });
  // Others' changes (and the pictures drawn after a change) reach the list without a reload.
  const stopEvents = subscribeEvents(
    { modelId: model.id },
    {
      onEvent: (event) => {
        if (!event.type.startsWith('configuration.') && event.type !== 'thumbnail.updated') return;
        readsAfterChange = READS_AFTER_CHANGE;
        reread();
      },
    },
  );
  reread();
  const element = h(
    'section',
    { class: 'card configurations-section' },
    h('h2', {}, 'Configurations'),
    h(
      'p',
      { class: 'hint' },
      'Choose one to see its paint; while it is shown, binding a material writes to it, not to the model.',
    ),
    createButton,
    formSlot,
    list,
  );
  return {
    element,
    dispose: () => {
      disposed = true;
      clearTimeout(pictureTimer);
      stopAccess();
      stopEvents();
    },
  };
}
