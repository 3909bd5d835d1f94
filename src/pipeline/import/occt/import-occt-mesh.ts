import type { Buffer, Document, Material, Mesh } from '@gltf-transform/core';

/** A triangulated shape as occt-import-js returns it; positions and normals are in world space. */
export interface OcctMesh {
  name?: string;
  color?: [number, number, number];
  brep_faces?: { first: number; last: number; color: [number, number, number] | null }[];
  attributes: { position: { array: number[] }; normal?: { array: number[] } };
  index: { array: number[] };
}

/** Colour of triangles nobody coloured: a neutral light grey, as CAD viewers show them. */
const DEFAULT_COLOR: [number, number, number] = [0.8, 0.8, 0.8];

/**
 * One glTF mesh for the shapes of one assembly node, with one primitive per distinct colour:
 * B-rep face colours win over the shape's colour, which wins over the default grey. Materials are
 * shared through `materials`, keyed by colour, so every colour is one material in the document.
 */
export function buildOcctMesh(
  document: Document,
  buffer: Buffer,
  materials: Map<string, Material>,
  shapes: OcctMesh[],
): Mesh {
  const mesh = document.createMesh();
  for (const shape of shapes) {
    const triangleColors = colorTriangles(shape);
    const groups = new Map<string, { color: [number, number, number]; triangles: number[] }>();
    triangleColors.forEach((color, triangle) => {
      const key = colorKey(color);
      const group = groups.get(key) ?? { color, triangles: [] };
      group.triangles.push(triangle);
      groups.set(key, group);
    });
    for (const [key, group] of groups) {
      let material = materials.get(key);
      if (!material) {
        material = document
          .createMaterial(`color-${key}`)
          .setBaseColorFactor([...group.color, 1])
          .setMetallicFactor(0)
          .setRoughnessFactor(0.6);
        materials.set(key, material);
      }
      mesh.addPrimitive(
        buildPrimitive(document, buffer, shape, group.triangles, groups.size === 1).setMaterial(material),
      );
    }
  }
  return mesh;
}

/** The colour of each triangle of a shape. */
function colorTriangles(shape: OcctMesh): [number, number, number][] {
  const count = Math.floor(shape.index.array.length / 3);
  const colors = new Array<[number, number, number]>(count).fill(shape.color ?? DEFAULT_COLOR);
  for (const face of shape.brep_faces ?? []) {
    if (!face.color) continue;
    for (let triangle = Math.max(0, face.first); triangle <= Math.min(face.last, count - 1); triangle++) {
      colors[triangle] = face.color;
    }
  }
  return colors;
}

/** Hex of a linear colour, rounded so near-identical colours share a material. */
function colorKey([r, g, b]: [number, number, number]): string {
  return [r, g, b]
    .map((value) =>
      Math.round(Math.min(1, Math.max(0, value)) * 255)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('');
}

/** A primitive of the given triangles, with only the vertices they use unless it takes the whole shape. */
function buildPrimitive(
  document: Document,
  buffer: Buffer,
  shape: OcctMesh,
  triangles: number[],
  whole: boolean,
) {
  const positions = shape.attributes.position.array;
  const normals = shape.attributes.normal?.array;
  const source = shape.index.array;
  let vertexIds: number[];
  const indices = new Uint32Array(triangles.length * 3);
  if (whole) {
    vertexIds = Array.from({ length: positions.length / 3 }, (_, i) => i);
    indices.set(source.slice(0, triangles.length * 3));
  } else {
    const remap = new Map<number, number>();
    vertexIds = [];
    triangles.forEach((triangle, t) => {
      for (let corner = 0; corner < 3; corner++) {
        const vertex = source[triangle * 3 + corner];
        let mapped = remap.get(vertex);
        if (mapped === undefined) {
          mapped = vertexIds.length;
          remap.set(vertex, mapped);
          vertexIds.push(vertex);
        }
        indices[t * 3 + corner] = mapped;
      }
    });
  }
  const position = new Float32Array(vertexIds.length * 3);
  const normal =
    normals && normals.length === positions.length ? new Float32Array(vertexIds.length * 3) : undefined;
  vertexIds.forEach((vertex, i) => {
    for (let axis = 0; axis < 3; axis++) {
      position[i * 3 + axis] = positions[vertex * 3 + axis];
      if (normal) normal[i * 3 + axis] = normals![vertex * 3 + axis];
    }
  });
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(position).setBuffer(buffer))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(indices).setBuffer(buffer));
  if (normal) {
    primitive.setAttribute(
      'NORMAL',
      document.createAccessor().setType('VEC3').setArray(normal).setBuffer(buffer),
    );
  }
  return primitive;
}
