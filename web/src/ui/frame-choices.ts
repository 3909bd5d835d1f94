/**
 * The unit and up-axis choices of the model forms (upload and details), for files that state neither. One list,
 * so both forms offer the same values, labels and defaults as the server accepts.
 */
import type { DeclaredUp, LengthUnit } from '../../../src/pipeline/types.ts';
import { h } from './dom.ts';

/** A value the server accepts and the words a person reads for it. */
export interface FrameChoice<T extends string> {
  value: T;
  label: string;
}

/** Labels per unit; a `Record` over the server's type, so a unit it adds fails the build until labelled here. */
const UNIT_LABELS: Record<LengthUnit, string> = {
  m: 'Metres (m)',
  cm: 'Centimetres (cm)',
  mm: 'Millimetres (mm)',
  in: 'Inches (in)',
  ft: 'Feet (ft)',
};

/** Labels per up axis, checked against the server's type in the same way. */
const UP_AXIS_LABELS: Record<DeclaredUp, string> = {
  y: 'Y up (glTF, most tools)',
  z: 'Z up (CAD, 3D printing, Blender)',
};

/** The units offered, in the order shown. */
export const UNIT_CHOICES: readonly FrameChoice<LengthUnit>[] = Object.entries(UNIT_LABELS).map(
  ([value, label]) => ({ value: value as LengthUnit, label }),
);

/** The up axes offered, in the order shown. */
export const UP_AXIS_CHOICES: readonly FrameChoice<DeclaredUp>[] = Object.entries(UP_AXIS_LABELS).map(
  ([value, label]) => ({ value: value as DeclaredUp, label }),
);

/** What the server assumes when nothing is declared (`unit`/`up` null on the model). */
export const DEFAULT_UNIT: LengthUnit = 'm';
/** See {@link DEFAULT_UNIT}. */
export const DEFAULT_UP_AXIS: DeclaredUp = 'y';

/**
 * Formats that state no unit or up axis, so the person's choice is what the server applies. Every other format
 * carries its own (FBX GlobalSettings, COLLADA `<asset>`, glTF by definition, IFC and STEP units) and the server
 * ignores a declared one; the forms never guess for these three.
 */
export const FORMATS_WITHOUT_FRAME: readonly string[] = ['obj', 'stl', 'ply'];

/** Whether a model of `format` (the lower-case extension) takes a declared unit and up axis. */
export function takesDeclaredFrame(format: string): boolean {
  return FORMATS_WITHOUT_FRAME.includes(format.toLowerCase());
}

/** One sentence for beside the two fields. */
export const FRAME_HINT =
  'OBJ, STL and PLY files do not say which unit or axis they use; other formats do, and theirs is used.';

/** A `<select>` of `choices` with `selected` chosen. */
export function frameSelect<T extends string>(
  id: string,
  choices: readonly FrameChoice<T>[],
  selected: T,
): HTMLSelectElement {
  return h(
    'select',
    { id },
    choices.map((choice) =>
      h('option', { value: choice.value, selected: choice.value === selected }, choice.label),
    ),
  );
}
