import type { Document, Mesh } from '@gltf-transform/core';
import { PROPERTIES_EXTRAS_KEY } from './part-properties.ts';

/** Names that say nothing about a part: assimp's placeholders and COLLADA exporters' numbered nodes. */
const GENERIC_NAME = /^(node\d*|defaultobject|<[a-z_]+>|)$/i;

/**
 * COLLADA `id` → `name` of every element that has both: assimp names meshes by their geometry's `id`
 * (`Part__Feature017_001-mesh`), while the `name` (`Part__Feature017.001`) is what the author typed.
 */
export function colladaNames(bytes: Uint8Array): Map<string, string> {
  const text = new TextDecoder().decode(bytes);
  const names = new Map<string, string>();
  for (const [tag] of text.matchAll(/<(?:geometry|node)\b[^>]*>/g)) {
    const id = /\bid="([^"]*)"/.exec(tag)?.[1];
    const name = /\bname="([^"]*)"/.exec(tag)?.[1];
    if (id && name && id !== name) names.set(id, decodeEntities(name));
  }
  return names;
}

/**
 * Gives parts meaningful names: meshes and nodes named by a COLLADA `id` take its `name` (nodes keep both as
 * their `COLLADA` properties); a mesh node whose
 * name is a placeholder (`node`, `node3`, `defaultobject`, empty) takes its mesh's name, or the file's
 * name when that says nothing either.
 */
export function nameParts(
  document: Document,
  fileName: string,
  sourceNames = new Map<string, string>(),
): void {
  const root = document.getRoot();
  const geometryIds = new Map<Mesh, string>();
  for (const mesh of root.listMeshes()) {
    const name = sourceNames.get(mesh.getName());
    if (!name) continue;
    geometryIds.set(mesh, mesh.getName());
    mesh.setName(name);
  }
  for (const node of root.listNodes()) {
    const id = node.getName();
    const name = sourceNames.get(id);
    if (name) node.setName(name);
    // The file's ids and names stay findable as the part's `COLLADA` properties.
    const geometryId = geometryIds.get(node.getMesh()!);
    const set: Record<string, string> = {
      ...(name ? { Id: id, Name: name } : {}),
      ...(geometryId ? { GeometryId: geometryId, Geometry: node.getMesh()!.getName() } : {}),
    };
    if (Object.keys(set).length > 0) {
      node.setExtras({ ...node.getExtras(), [PROPERTIES_EXTRAS_KEY]: { COLLADA: set } });
    }
    const mesh = node.getMesh();
    if (!mesh || !GENERIC_NAME.test(node.getName())) continue;
    node.setName(GENERIC_NAME.test(mesh.getName()) ? fileName : mesh.getName());
  }
}

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
