// The import graph of src/: every relative import of every module, the ones that cross the layers of layers.ts
// (upward, or from one feature into another), and the features that import each other.
import fs from 'node:fs';
import path from 'node:path';
import { LAYERS } from './layers.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

/** src/ of this checkout. */
export const SRC = path.join(CHECKOUT_ROOT, 'src');

/** One import: both ends as paths relative to src/. */
export interface Edge {
  from: string;
  to: string;
}

// Static imports and re-exports (`from '…'`), bare imports (`import '…'`) and dynamic ones (`import('…')`).
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/** The TypeScript modules under `dir`, relative to `base` (src/ unless told), in a stable order. */
export function modulesUnder(dir: string, base = SRC): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.relative(base, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** Every relative import between modules of src/. */
export function importEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const from of modulesUnder(SRC)) {
    const text = fs.readFileSync(path.join(SRC, from), 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), match[1]!));
      // Imports reaching outside src/ (the web viewer's, say) are not this graph's.
      if (!target.startsWith('../')) edges.push({ from, to: target });
    }
  }
  return edges;
}

/** The layer member a module belongs to: its top folder (`catalog/`) or, at src/'s top, its file name. */
export function memberOf(module: string): string {
  const slash = module.indexOf('/');
  return slash === -1 ? module : module.slice(0, slash + 1);
}

/** The index in {@link LAYERS} of a member, or -1 when no layer holds it. */
export function layerOf(member: string): number {
  return LAYERS.findIndex((layer) => layer.members.includes(member));
}

/** Whether an import breaks the layering: it goes up, or into what another feature keeps its own. */
export function crosses(edge: Edge): boolean {
  const from = memberOf(edge.from);
  const to = memberOf(edge.to);
  if (from === to) return false;
  const fromLayer = layerOf(from);
  const toLayer = layerOf(to);
  if (toLayer !== fromLayer) return toLayer > fromLayer;
  const published = LAYERS[fromLayer]!.published;
  return published !== undefined && !published.includes(path.posix.basename(edge.to));
}

/** An edge as `from -> to`, as the list of known crossings writes it. */
export function edgeName(edge: Edge): string {
  return `${edge.from} -> ${edge.to}`;
}

/**
 * The pairs of features that import each other, each way through any module (published or not), as `a/ <-> b/`
 * with the names in order: two such folders are one feature cut in two.
 */
export function twoWayFeatures(edges: readonly Edge[]): string[] {
  const features = new Set(LAYERS.find((layer) => layer.published !== undefined)?.members);
  const imports = new Set<string>();
  for (const edge of edges) {
    const from = memberOf(edge.from);
    const to = memberOf(edge.to);
    if (from !== to && features.has(from) && features.has(to)) imports.add(`${from} ${to}`);
  }
  return [...imports]
    .map((pair) => pair.split(' ') as [string, string])
    .filter(([from, to]) => from < to && imports.has(`${to} ${from}`))
    .map(([from, to]) => `${from} <-> ${to}`)
    .sort();
}
