import { child, numbersOf, parseFbx, setNumbers, stringValue, writeFbx } from './fbx-tree.ts';
import type { FbxNode } from './fbx-tree.ts';
import { triangulatePolygon } from '../triangulate-polygon.ts';

/** Layer mappings whose values follow the polygon corners, and those that follow the polygons. */
const PER_CORNER = new Set(['ByPolygonVertex', 'ByPolygonVertice']);
const PER_POLYGON = new Set(['ByPolygon']);
/** Layer children that are single values, never per-element data. */
const SCALARS = new Set(['Version', 'Name', 'MappingInformationType', 'ReferenceInformationType']);

/**
 * Rewrites every mesh polygon of more than three corners in an FBX file (binary or ASCII) as the
 * triangles of {@link triangulatePolygon}, carrying each corner's normals, UVs, colours and each
 * polygon's material along. Returns `undefined` when no polygon needs it or the file cannot be parsed
 * (the importer then reads the file as it is and reports what is wrong with it).
 */
export function triangulateFbxPolygons(bytes: Uint8Array): Uint8Array | undefined {
  let file;
  try {
    file = parseFbx(bytes);
  } catch {
    return undefined;
  }
  const objects = file.nodes.find((node) => node.name === 'Objects');
  let changed = false;
  for (const geometry of objects?.children ?? []) {
    if (geometry.name === 'Geometry' && triangulateGeometry(geometry)) changed = true;
  }
  return changed ? writeFbx(file) : undefined;
}

/** Triangulates one `Geometry` node in place; false when it has no polygon of more than three corners. */
function triangulateGeometry(geometry: FbxNode): boolean {
  const indexNode = child(geometry, 'PolygonVertexIndex');
  const vertexNode = child(geometry, 'Vertices');
  const indices = indexNode && numbersOf(indexNode);
  const vertices = vertexNode && numbersOf(vertexNode);
  if (!indexNode || !indices || !vertices) return false;

  // A negative index (its bits inverted) closes a polygon.
  const starts: number[] = [];
  let start = 0;
  let needed = false;
  for (let corner = 0; corner < indices.length; corner++) {
    if (indices[corner] < 0) {
      starts.push(start);
      if (corner - start + 1 > 3) needed = true;
      start = corner + 1;
    }
  }
  if (!needed) return false;
  starts.push(indices.length);

  const corners: number[] = [];
  const polygons: number[] = [];
  const output: number[] = [];
  for (let polygon = 0; polygon + 1 < starts.length; polygon++) {
    const first = starts[polygon];
    const count = starts[polygon + 1] - first;
    const vertex = (local: number) => {
      const value = indices[first + local];
      return value < 0 ? -value - 1 : value;
    };
    let triangles: number[] = [];
    if (count > 3) {
      const points = new Float64Array(count * 3);
      for (let local = 0; local < count; local++) {
        points.set(vertices.slice(vertex(local) * 3, vertex(local) * 3 + 3), local * 3);
      }
      triangles = triangulatePolygon(points);
    }
    // Triangles, and polygons with no area to cut, stay as they are.
    const groups =
      triangles.length > 0
        ? Array.from({ length: triangles.length / 3 }, (_, t) => triangles.slice(t * 3, t * 3 + 3))
        : [Array.from({ length: count }, (_, local) => local)];
    for (const group of groups) {
      group.forEach((local, position) => {
        corners.push(first + local);
        output.push(position === group.length - 1 ? -vertex(local) - 1 : vertex(local));
      });
      polygons.push(polygon);
    }
  }
  setNumbers(indexNode, output);

  for (const layer of geometry.children) {
    if (!layer.name.startsWith('LayerElement')) continue;
    const mapping = stringValue(child(layer, 'MappingInformationType')) ?? '';
    const source = PER_CORNER.has(mapping) ? corners : PER_POLYGON.has(mapping) ? polygons : undefined;
    if (!source) continue;
    const count = PER_CORNER.has(mapping) ? indices.length : starts.length - 1;
    remapLayer(layer, source, count);
  }
  return true;
}

/**
 * Reorders a layer's per-corner or per-polygon values to the new corners or polygons: its index array
 * when it has one (`UVIndex`), otherwise every array of one or more values per element.
 */
function remapLayer(layer: FbxNode, source: number[], count: number): void {
  const reference = stringValue(child(layer, 'ReferenceInformationType')) ?? 'Direct';
  const arrays = layer.children.filter((node) => !SCALARS.has(node.name) && numbersOf(node));
  const indexArrays = arrays.filter((node) => node.name.endsWith('Index'));
  const targets = reference !== 'Direct' && indexArrays.length > 0 ? indexArrays : arrays;
  for (const node of targets) {
    const values = numbersOf(node)!;
    if (values.length === 0 || values.length % count !== 0) continue;
    const stride = values.length / count;
    const next = new Array<number>(source.length * stride);
    for (let i = 0; i < source.length; i++) {
      for (let k = 0; k < stride; k++) next[i * stride + k] = values[source[i] * stride + k];
    }
    setNumbers(node, next);
  }
}
