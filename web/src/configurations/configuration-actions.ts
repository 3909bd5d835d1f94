/** What the buttons of the Configurations card's rows do: show, apply, rename and delete a configuration. */
import {
  applyConfiguration,
  deleteConfiguration,
  renameConfiguration,
  type Configuration,
} from '../api/configurations-api.ts';
import type { WriteAccess } from '../pages/write-access.ts';
import { notifyInfo } from '../ui/notify.ts';
import { createNameForm } from './configuration-name-form.ts';
import type { RowActions } from './configuration-row.ts';

/** What the actions act on: the card's state and its redraws. */
export interface ActionsContext {
  modelId: string;
  access: WriteAccess;
  /** The configuration shown, or null. */
  shown: () => string | null;
  /** Shows configuration `id` (null: none). */
  show: (id: string | null) => void;
  /** Reads the list again and draws it. */
  refresh: () => Promise<void>;
  /** A rename form is open in `row`, which the list keeps through its redraws until the rename ends. */
  renameOpened: (id: string, row: HTMLElement) => void;
  /** The rename form is closed: the row is drawn afresh at the next redraw. */
  renameEnded: () => void;
  /** Draws the list as last read. */
  render: () => void;
  /** Reads the list again shortly, for a picture's new address. */
  refreshSoon: () => void;
  /** The model's own bindings changed: a configuration was applied. */
  onApplied: () => void;
}

/** The rows' actions over `context`. */
export function createRowActions(context: ActionsContext): RowActions {
  const { access, refresh } = context;
  const ref = (configuration: Configuration) => ({ modelId: context.modelId, id: configuration.id });
  return {
    show: (configuration) => context.show(configuration?.id ?? null),
    // A read that changes nothing draws nothing, so a picture missing for good is asked for once.
    pictureMissing: context.refreshSoon,
    apply: (configuration) =>
      access.attempt('Applying the configuration', async () => {
        await applyConfiguration(ref(configuration));
        notifyInfo(`Configuration “${configuration.name}” applied: its bindings are the model's now`);
        context.onApplied();
        await refresh();
      }),
    rename: (configuration, row) => {
      const form = createNameForm({
        label: `New name of “${configuration.name}”`,
        submit: 'Save',
        value: configuration.name,
        save: (name) =>
          access.attempt('Renaming the configuration', async () => {
            await renameConfiguration(ref(configuration), name);
            context.renameEnded();
            await refresh();
          }),
        cancel: () => {
          context.renameEnded();
          context.render();
        },
      });
      row.replaceChildren(form.element);
      context.renameOpened(configuration.id, row);
      form.focus();
    },
    remove: (configuration) => {
      if (!confirm(`Delete the configuration “${configuration.name}”? The model keeps its own bindings.`))
        return;
      access.attempt('Deleting the configuration', async () => {
        await deleteConfiguration(ref(configuration));
        notifyInfo(`Configuration “${configuration.name}” deleted`);
        if (context.shown() === configuration.id) context.show(null);
        await refresh();
      });
    },
  };
}
