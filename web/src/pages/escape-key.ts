/** Esc on the model page: it clears the selection from anywhere on the page except while typing in a field. */

/** Esc in these fields belongs to the field (clearing a search box), not to the selection. */
export function isTextEntry(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (
    target.isContentEditable ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement
  ) {
    return true;
  }
  return (
    target instanceof HTMLInputElement &&
    !['button', 'checkbox', 'radio', 'range', 'submit'].includes(target.type)
  );
}

/**
 * Calls `handler` on each Esc pressed anywhere on the page (so Esc also clears a selection made in the parts tree,
 * where the focus then is) but in a text field; returns the function that stops listening.
 */
export function onEscape(handler: () => void): () => void {
  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key !== 'Escape' || event.defaultPrevented || isTextEntry(event.target)) return;
    handler();
  };
  document.addEventListener('keydown', onKeyDown);
  return () => document.removeEventListener('keydown', onKeyDown);
}
