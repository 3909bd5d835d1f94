/**
 * The choices of a model's declared frame, for files that state no unit or up axis (STL, OBJ, PLY): the values
 * the API takes (`unit`, `up`), their labels, and the defaults the server assumes when none is sent.
 */

/** One option of a choice: the value sent, the label shown. */
export interface FrameChoice {
  value: string;
  label: string;
}

/** Length units, smallest first. */
export const UNIT_CHOICES: readonly FrameChoice[] = [
  { value: 'mm', label: 'Millimetres (mm)' },
  { value: 'cm', label: 'Centimetres (cm)' },
  { value: 'm', label: 'Metres (m)' },
  { value: 'in', label: 'Inches (in)' },
  { value: 'ft', label: 'Feet (ft)' },
];

/** The unit the server assumes for a file that states none. */
export const DEFAULT_UNIT = 'm';

/** Up axes. */
export const UP_CHOICES: readonly FrameChoice[] = [
  { value: 'y', label: 'Y up' },
  { value: 'z', label: 'Z up' },
];

/** The up axis the server assumes for a file that states none. */
export const DEFAULT_UP = 'y';
