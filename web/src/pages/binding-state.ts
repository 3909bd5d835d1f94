/** What the bind button of the materials panel says: ready to bind, or what is still missing. */

/** The button's state and the line beside it that explains it. */
export interface BindingState {
  /** True when both parts and a material are chosen. */
  ready: boolean;
  /** The button's text: the action when ready, else what it still needs. */
  label: string;
  /** One sentence on what to do next. */
  hint: string;
}

/** The bind button's state for `selected` parts and the open material's name (null: none open). */
export function bindingState(selected: number, material: string | null): BindingState {
  const parts = `${selected} part${selected === 1 ? '' : 's'}`;
  if (selected > 0 && material !== null) {
    return {
      ready: true,
      label: `Bind selected parts to “${material}”`,
      hint: `${parts} selected; binding paints ${selected === 1 ? 'it' : 'them'} with “${material}”.`,
    };
  }
  if (selected > 0) {
    return {
      ready: false,
      label: `Bind ${parts}: pick a material`,
      hint: `${parts} selected. Pick a material in the list below, or make one with New material.`,
    };
  }
  if (material !== null) {
    return {
      ready: false,
      label: `Bind to “${material}”: select parts`,
      hint: 'Select parts in the view or the tree (Shift or Ctrl + click for several).',
    };
  }
  return {
    ready: false,
    label: 'Bind: select parts, pick a material',
    hint: 'To bind, select parts in the view or the tree, then pick a material below or make one.',
  };
}
