import { UNITS_PER_METRE, type ExportUnit } from './export-formats.ts';
import type { FlatPrimitive, FlatScene } from './flatten-parts.ts';
import { linearToSrgb, materialTable, num, type TextureFile } from './material-table.ts';
import { toPrintFrame } from './print-frame.ts';
import { writeZip } from './write-zip.ts';

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
  <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
  <Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/>
  <Default Extension="png" ContentType="image/png"/>
  <Default Extension="jpg" ContentType="image/jpeg"/>
</Types>
`;

const RELATIONSHIPS = `<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
  <Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/>
</Relationships>
`;

/** Relationship type of a texture part, which the model part must name for readers to find it. */
const TEXTURE_RELATIONSHIP = 'http://schemas.microsoft.com/3dmanufacturing/2013/01/3dtexture';
/** Namespace of the 3MF Materials and Properties extension (texture2d, texture2dgroup). */
const MATERIALS_NAMESPACE = 'http://schemas.microsoft.com/3dmanufacturing/material/2015/02';

/** Id of the one `basematerials` group; textures, their coordinate groups and objects take the ids after it. */
const MATERIALS_ID = 1;

/** A texture of the package with the UV coordinates of every textured triangle corner that uses it. */
interface TextureGroup {
  textureId: number;
  groupId: number;
  /** Path of the image part in the package. */
  part: string;
  contentType: string;
  data: Uint8Array;
  /** u, v per coordinate (3MF's v counts up from the bottom of the image). */
  coords: number[];
}

/**
 * Writes a 3MF package: one mesh object per part, named after it, with its material's colour as a base material
 * (`displaycolor`, sRGB with alpha); a part of several materials colours its other triangles per triangle. A base
 * colour texture travels as a `m:texture2d` (Materials and Properties extension) with a `m:texture2dgroup` of the
 * triangles' UVs, its PNG or JPEG a part of the package. Lengths are in `unit` (`unit` attribute of the model) and +Z
 * is up, as 3MF defines its build volume. Parts without triangles are left out (3MF meshes must have some).
 */
export async function write3mf(scene: FlatScene, title: string, unit: ExportUnit): Promise<Uint8Array> {
  const { entries } = await materialTable(scene);
  const scale = UNITS_PER_METRE[unit];
  const materialIndex = new Map<unknown, number>();
  const bases: string[] = [];
  for (const [material, entry] of entries) {
    materialIndex.set(material, bases.length);
    bases.push(
      `    <base name="${xml(entry.name)}" displaycolor="${hexColour(entry.baseColor, entry.blend)}"/>`,
    );
  }
  let nextId = MATERIALS_ID + 1;
  // Textures first: a resource must be defined before an object refers to it.
  const groups = new Map<TextureFile, TextureGroup>();
  const textured = new Map<FlatPrimitive, { group: TextureGroup; first: number }>();
  for (const part of scene.parts) {
    for (const primitive of part.primitives) {
      const file = primitive.material ? entries.get(primitive.material)?.baseColorTexture : undefined;
      if (!file || !primitive.uvs || primitive.indices.length < 3) continue;
      let group = groups.get(file);
      if (!group) {
        const jpeg = file.path.endsWith('.jpg');
        group = {
          textureId: nextId++,
          groupId: nextId++,
          part: `/3D/Textures/${groups.size}.${jpeg ? 'jpg' : 'png'}`,
          contentType: jpeg ? 'image/jpeg' : 'image/png',
          data: file.data,
          coords: [],
        };
        groups.set(file, group);
      }
      textured.set(primitive, { group, first: group.coords.length / 2 });
      for (let i = 0; i < primitive.uvs.length; i += 2)
        group.coords.push(primitive.uvs[i], 1 - primitive.uvs[i + 1]);
    }
  }

  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<model unit="${unit}" xml:lang="en-US" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"` +
      (groups.size > 0 ? ` xmlns:m="${MATERIALS_NAMESPACE}"` : '') +
      '>',
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
  for (const group of groups.values()) {
    out.push(
      `    <m:texture2d id="${group.textureId}" path="${group.part}" contenttype="${group.contentType}" tilestyleu="wrap" tilestylev="wrap"/>`,
      `    <m:texture2dgroup id="${group.groupId}" texid="${group.textureId}">`,
    );
    for (let i = 0; i < group.coords.length; i += 2) {
      out.push(`      <m:tex2coord u="${num(group.coords[i])}" v="${num(group.coords[i + 1])}"/>`);
    }
    out.push('    </m:texture2dgroup>');
  }
  const items: string[] = [];
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
      const p = toPrintFrame(positions, scale);
      for (let i = 0; i < p.length; i += 3) {
        out.push(`          <vertex x="${num(p[i])}" y="${num(p[i + 1])}" z="${num(p[i + 2])}"/>`);
      }
    }
    out.push('        </vertices>', '        <triangles>');
    let vertexBase = 0;
    for (const primitive of primitives) {
      const { positions, indices, material } = primitive;
      const index = material ? materialIndex.get(material) : undefined;
      const own = index !== undefined && index !== first ? ` pid="${MATERIALS_ID}" p1="${index}"` : '';
      const texture = textured.get(primitive);
      for (let t = 0; t < indices.length; t += 3) {
        const property = texture
          ? ` pid="${texture.group.groupId}" p1="${texture.first + indices[t]}" p2="${texture.first + indices[t + 1]}" p3="${texture.first + indices[t + 2]}"`
          : own;
        out.push(
          `          <triangle v1="${vertexBase + indices[t]}" v2="${vertexBase + indices[t + 1]}" v3="${vertexBase + indices[t + 2]}"${property}/>`,
        );
      }
      vertexBase += positions.length / 3;
    }
    out.push('        </triangles>', '      </mesh>', '    </object>');
    items.push(`    <item objectid="${id}"/>`);
  }
  out.push('  </resources>', '  <build>', ...items, '  </build>', '</model>', '');
  const encoder = new TextEncoder();
  const textureRelationships = [...groups.values()].map(
    (group, i) => `  <Relationship Target="${group.part}" Id="tex${i}" Type="${TEXTURE_RELATIONSHIP}"/>`,
  );
  return writeZip(
    [
      { name: '[Content_Types].xml', data: encoder.encode(CONTENT_TYPES) },
      { name: '_rels/.rels', data: encoder.encode(RELATIONSHIPS) },
      { name: '3D/3dmodel.model', data: encoder.encode(out.join('\n')) },
      ...(groups.size > 0
        ? [
            {
              name: '3D/_rels/3dmodel.model.rels',
              data: encoder.encode(
                [
                  '<?xml version="1.0" encoding="UTF-8"?>',
                  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">',
                  ...textureRelationships,
                  '</Relationships>',
                  '',
                ].join('\n'),
              ),
            },
          ]
        : []),
      ...[...groups.values()].map((group) => ({ name: group.part.slice(1), data: group.data })),
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
