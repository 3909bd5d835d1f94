/** The words for a selection of parts, as the model page's status line and the embed's readout show it. */

/** The readout of the selection, from the names of the selected parts. */
export function selectionSummary(names: readonly string[]): string {
  if (names.length === 0) return 'No part selected';
  return names.length === 1 ? `Selected: ${names[0]}` : `${names.length} parts selected`;
}
