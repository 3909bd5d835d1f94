// OBJ text of named parts given by their corners and faces, for the tests of parts that repeat others moved.

/** A corner's x, y and z. */
export type Corner = [number, number, number];

/** A part as OBJ writes it: an `o` of this name, its corners, its faces over them (1-based, each its own). */
export interface CornerPart {
  name: string;
  corners: Corner[];
  faces: string[];
  /** The `usemtl` its faces draw with; none written when absent. */
  material?: string;
}

/** The parts' lines, each an `o` with its `usemtl`, `v` and `f` statements, the faces numbered across the file. */
export function cornerPartsObjLines(parts: readonly CornerPart[]): string[] {
  const lines: string[] = [];
  let base = 0;
  for (const part of parts) {
    lines.push(`o ${part.name}`);
    if (part.material !== undefined) lines.push(`usemtl ${part.material}`);
    for (const corner of part.corners) lines.push(`v ${corner.join(' ')}`);
    for (const face of part.faces)
      lines.push(
        `f ${face
          .split(' ')
          .map((index) => Number(index) + base)
          .join(' ')}`,
      );
    base += part.corners.length;
  }
  return lines;
}
