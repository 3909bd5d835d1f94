import { Document, Primitive } from '@gltf-transform/core';

/** Vertex and index arrays one mesh importer read. */
export interface MeshArrays {
  /** Name of the node and mesh (the file's base name). */
  name: string;
  /** x, y, z per vertex. */
  positions: Float32Array<ArrayBuffer>;
  /** Unit normals per vertex, when the file has them. */
  normals?: Float32Array<ArrayBuffer>;
  /** Texture coordinates per vertex (glTF's convention: v down from the top). */
  uvs?: Float32Array<ArrayBuffer>;
  /** Linear RGBA per vertex, 0–1, when the file has colours. */
  colors?: Float32Array<ArrayBuffer>;
  /** Triangles as vertex index triples; without them the vertices are a point cloud (POINTS). */
  indices?: Uint32Array<ArrayBuffer>;
}

/** A glTF document of one node holding one mesh of one primitive: triangles, or points when there are no faces. */
export function meshDocument(arrays: MeshArrays): Document {
  const document = new Document();
  const buffer = document.createBuffer();
  const accessor = (
    type: 'VEC2' | 'VEC3' | 'VEC4' | 'SCALAR',
    array: Float32Array<ArrayBuffer> | Uint32Array<ArrayBuffer>,
  ) => document.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', arrays.positions))
    .setMode(arrays.indices ? Primitive.Mode.TRIANGLES : Primitive.Mode.POINTS);
  if (arrays.normals) primitive.setAttribute('NORMAL', accessor('VEC3', arrays.normals));
  if (arrays.uvs) primitive.setAttribute('TEXCOORD_0', accessor('VEC2', arrays.uvs));
  if (arrays.colors) primitive.setAttribute('COLOR_0', accessor('VEC4', arrays.colors));
  if (arrays.indices) primitive.setIndices(accessor('SCALAR', arrays.indices));
  const mesh = document.createMesh(arrays.name).addPrimitive(primitive);
  const node = document.createNode(arrays.name).setMesh(mesh);
  document.getRoot().setDefaultScene(document.createScene(arrays.name).addChild(node));
  return document;
}

/** sRGB colour component 0–1 to linear, as glTF's COLOR_0 holds it. */
export function srgbToLinear(value: number): number {
  return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
}
