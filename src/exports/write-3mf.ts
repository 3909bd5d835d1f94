import type { FlatScene } from './flatten-parts.ts';
import { linearToSrgb, materialTable, num } from './material-table.ts';
import { writeZip } from './write-zip.ts';

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
  <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
  <Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/>
</Types>
`;

const RELATIONSHIPS = `<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
  <Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/>
</Relationships>
`;

/** 3MF counts in millimetres by default, which every slicer reads; Vitrine's scene is in metres. */
const MM_PER_METRE = 1000;

/** Id of the one `basematerials` group; objects take the ids after it. */
const MATERIALS_ID = 1;

/**
 * Writes a 3MF package: one mesh object per part, named after it, with its material's colour as a base material
 * (`displaycolor`, sRGB with alpha); a part of several materials colours its other triangles per triangle. Units are
 * millimetres and +Z is up, as 3MF defines its build volume. Parts without triangles are left out (3MF meshes must
 * have some).
 */
export function write3mf(scene: FlatScene, title: string): Uint8Array {
  const { entries } = materialTable(scene);
  const materialIndex = new Map<unknown, number>();
  const bases: string[] = [];
  for (const [material, entry] of entries) {
    materialIndex.set(material, bases.length);
    bases.push(
      `    <base name="${xml(entry.name)}" displaycolor="${hexColour(entry.baseColor, entry.blend)}"/>`,
    );
  }
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<model unit="millimeter" xml:lang="en-US" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">',
    `  <metadata name="Title">${xml(title)}</metadata>`,
    '  <metadata name="Application">Vitrine</metadata>',
    '  <resources>',
  ];
  if (bases.length > 0)
    out.push(
      `    <basematerials id="${MATERIALS_ID}">`,
      ...bases.map((b) => `  ${b}`),
      '    </basematerials>',
    );
  const items: string[] = [];
  let nextId = MATERIALS_ID + 1;
  for (const part of scene.parts) {
    const primitives = part.primitives.filter((primitive) => primitive.indices.length >= 3);
    if (primitives.length === 0) continue;
    const id = nextId++;
    const first = primitives[0].material ? materialIndex.get(primitives[0].material) : undefined;
    const colour = first === undefined ? '' : ` pid="${MATERIALS_ID}" pindex="${first}"`;
    out.push(
      `    <object id="${id}" type="model" name="${xml(part.name)}"${colour}>`,
      '      <mesh>',
      '        <vertices>',
    );
    for (const { positions } of primitives) {
      for (let i = 0; i < positions.length; i += 3) {
        // +Y up to +Z up: (x, y, z) → (x, −z, y), a rotation, so the winding stays the same.
        const x = positions[i] * MM_PER_METRE;
        const y = -positions[i + 2] * MM_PER_METRE;
        const z = positions[i + 1] * MM_PER_METRE;
        out.push(`          <vertex x="${num(x)}" y="${num(y)}" z="${num(z)}"/>`);
      }
    }
    out.push('        </vertices>', '        <triangles>');
    let vertexBase = 0;
    for (const { positions, indices, material } of primitives) {
      const index = material ? materialIndex.get(material) : undefined;
      const own = index !== undefined && index !== first ? ` pid="${MATERIALS_ID}" p1="${index}"` : '';
      for (let t = 0; t < indices.length; t += 3) {
        out.push(
          `          <triangle v1="${vertexBase + indices[t]}" v2="${vertexBase + indices[t + 1]}" v3="${vertexBase + indices[t + 2]}"${own}/>`,
        );
      }
      vertexBase += positions.length / 3;
    }
    out.push('        </triangles>', '      </mesh>', '    </object>');
    items.push(`    <item objectid="${id}"/>`);
  }
  out.push('  </resources>', '  <build>', ...items, '  </build>', '</model>', '');
  const encoder = new TextEncoder();
  return writeZip(
    [
      { name: '[Content_Types].xml', data: encoder.encode(CONTENT_TYPES) },
      { name: '_rels/.rels', data: encoder.encode(RELATIONSHIPS) },
      { name: '3D/3dmodel.model', data: encoder.encode(out.join('\n')) },
    ],
    { deflate: true },
  );
}

/** `#RRGGBBAA` in sRGB, as 3MF's display colours are; opaque unless the material blends. */
function hexColour([r, g, b, a]: [number, number, number, number], blend: boolean): string {
  const byte = (value: number) =>
    Math.round(Math.min(Math.max(value, 0), 1) * 255)
      .toString(16)
      .padStart(2, '0')
      .toUpperCase();
  return `#${byte(linearToSrgb(r))}${byte(linearToSrgb(g))}${byte(linearToSrgb(b))}${byte(blend ? a : 1)}`;
}

/** Text safe inside an XML attribute or element. */
function xml(text: string): string {
  // XML 1.0 has no way to write the other control characters, even escaped.
  return [...text]
    .filter((c) => c >= ' ' || c === '\t' || c === '\n' || c === '\r')
    .join('')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}
