import { ConversionError } from './types.ts';

/**
 * The error of a model that is valid but bigger than a configured limit: it names the limit, the setting that
 * raises it and the model's value, so it is never mistaken for a damaged file.
 */
export class LimitError extends ConversionError {}

/** Throws a {@link LimitError} when a model has more triangles than `maxTriangles` allows. */
export function checkTriangleLimit(triangles: number, maxTriangles: number | undefined): void {
  if (maxTriangles === undefined || triangles <= maxTriangles) return;
  throw new LimitError(
    `The model has ${triangles.toLocaleString('en-US')} triangles, more than the limit of ` +
      `${maxTriangles.toLocaleString('en-US')} (CONVERSION_MAX_TRIANGLES)`,
  );
}
