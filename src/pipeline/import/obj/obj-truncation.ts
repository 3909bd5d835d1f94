import type { ModelFormat } from '../../types.ts';

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const FACE_REF = /^-?\d+(\/-?\d*){0,2}$/;

/** Fewest numbers (or vertex references) each OBJ statement needs to be whole. */
const OBJ_MINIMUM: Record<string, number> = { v: 3, vn: 3, vt: 1, f: 3, l: 2 };

/**
 * Whether a model file visibly ends mid-statement. OBJ has no end marker and assimp imports whatever
 * precedes the cut, so an upload cut off in transfer would otherwise convert to a partial model.
 * Only a last line without a newline that cannot be a whole statement counts: a cut that happens to
 * fall between statements is not detectable.
 */
export function endsMidStatement(bytes: Uint8Array, format: ModelFormat): boolean {
  if (format !== 'obj' || bytes.byteLength === 0) return false;
  const last = bytes[bytes.byteLength - 1];
  if (last === 0x0a || last === 0x0d) return false;
  const start = bytes.lastIndexOf(0x0a) + 1;
  const line = Buffer.from(bytes.buffer, bytes.byteOffset + start, bytes.byteLength - start)
    .toString('latin1')
    .trim();
  const [keyword, ...values] = line.split(/\s+/);
  const minimum = OBJ_MINIMUM[keyword];
  if (minimum === undefined) return false;
  if (values.length < minimum) return true;
  if (keyword === 'f' || keyword === 'l') {
    const shape = values[0].split('/').length;
    return values.some(
      (value) => !FACE_REF.test(value) || value.split('/').length !== shape || value.endsWith('/'),
    );
  }
  return values.some((value) => !NUMBER.test(value));
}
