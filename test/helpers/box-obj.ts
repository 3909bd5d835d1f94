// OBJ text of named boxes, for version tests that add, move or rename parts by editing the file they post.

/** A box: its name (the OBJ group's), low corner and size. */
export interface Box {
  name: string;
  at: [number, number, number];
  size: [number, number, number];
}

// Two triangles per side, wound outwards; corner bits are x, y, z.
const SIDES = [
  [0, 2, 3, 1],
  [4, 5, 7, 6],
  [0, 1, 5, 4],
  [2, 6, 7, 3],
  [0, 4, 6, 2],
  [1, 3, 7, 5],
];

/** Each box an `o` group of 8 vertices and 12 triangles, in the order given. */
export function boxesObj(boxes: readonly Box[]): string {
  const lines: string[] = [];
  boxes.forEach(({ name, at, size }, index) => {
    lines.push(`o ${name}`);
    for (let corner = 0; corner < 8; corner++) {
      const position = [0, 1, 2].map((axis) => at[axis] + ((corner >> axis) & 1) * size[axis]);
      lines.push(`v ${position.join(' ')}`);
    }
    const base = index * 8 + 1;
    for (const [a, b, c, d] of SIDES) {
      lines.push(`f ${base + a} ${base + b} ${base + c}`, `f ${base + a} ${base + c} ${base + d}`);
    }
  });
  return `${lines.join('\n')}\n`;
}
