/** The small form that asks a configuration's name, for a new one or a rename. */
import { h } from '../ui/dom.ts';

/** What the form says and does. */
export interface NameFormOptions {
  /** The input's accessible name. */
  label: string;
  /** The submit button's text. */
  submit: string;
  /** The name filled in to start with. */
  value?: string;
  /** Saves the trimmed, non-blank name (and closes the form once saved). */
  save: (name: string) => void;
  cancel: () => void;
}

/** Longest name the server takes. */
const MAX_NAME_LENGTH = 255;

/** Builds the form; its input has the focus once it is in the page (see `focus`). */
export function createNameForm(options: NameFormOptions): { element: HTMLFormElement; focus: () => void } {
  const input = h('input', {
    type: 'text',
    class: 'configuration-name',
    maxLength: MAX_NAME_LENGTH,
    required: true,
    value: options.value ?? '',
    'aria-label': options.label,
  });
  const submit = h('button', { type: 'submit', class: 'primary' }, options.submit);
  const element = h(
    'form',
    { class: 'configuration-form' },
    input,
    h(
      'div',
      { class: 'button-row' },
      submit,
      h('button', { type: 'button', onclick: options.cancel }, 'Cancel'),
    ),
  );
  element.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (name) options.save(name);
    else input.focus();
  });
  element.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      // The page's Escape clears the selection; here it only closes the form.
      event.stopPropagation();
      options.cancel();
    }
  });
  return {
    element,
    focus: () => {
      input.focus();
      input.select();
    },
  };
}
