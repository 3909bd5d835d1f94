/**
 * Lengths in the model's own unit. The viewer's geometry is in metres (the converter scales every source to them);
 * a person reads a part's size in the unit the model was made in: the one declared for it, else the one its file
 * stated, else metres.
 */
import { LENGTH_UNITS, type LengthUnit } from '../../../src/pipeline/types.ts';
import type { Model } from '../api/types.ts';

/** What the view's tools need to know of the model they show: its name and its units (catalog or share link). */
export type ViewedModel = Pick<Model, 'name' | 'unit' | 'source_unit'>;

/** The unit a model's lengths are shown in. */
export function modelUnit(model: Pick<Model, 'unit' | 'source_unit'>): LengthUnit {
  if (model.unit) return model.unit;
  const stated = model.source_unit;
  return stated && stated in LENGTH_UNITS ? (stated as LengthUnit) : 'm';
}

/** `metres` as a number in `unit`, with five significant digits, followed by the unit: `1234.5 mm`. */
export function formatLength(metres: number, unit: LengthUnit): string {
  const value = metres / LENGTH_UNITS[unit];
  const text = Math.abs(value) >= 1e5 ? value.toFixed(0) : value.toPrecision(5).replace(/(\.\d*?)0+$/, '$1');
  return `${text.replace(/\.$/, '')} ${unit}`;
}
