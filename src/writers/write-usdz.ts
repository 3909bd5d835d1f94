import type { FlatPrimitive, FlatScene } from './flatten-parts.ts';
import { identifier, materialTable, num, uniqueName, type MaterialEntry } from './material-table.ts';
import { writeZip } from './write-zip.ts';

/** USDZ requires each file's data to start at a multiple of 64 bytes, so it can be mapped in place. */
export const USDZ_ALIGNMENT = 64;
/** Name of the root layer, the package's first file. */
export const USDZ_ROOT_LAYER = 'model.usda';

/**
 * Writes a USDZ package AR Quick Look opens: an uncompressed zip whose first file is a USDA root layer (metres,
 * +Y up, `defaultPrim` Root), followed by the textures, every file's data 64-byte aligned. Each part is an Xform
 * named after it (reduced to a USD identifier) holding one Mesh per material, in world space, bound to a
 * UsdPreviewSurface material: base colour (linear, as glTF), opacity when it blends, metallic, roughness, IOR, and
 * the base colour, normal and metallic-roughness textures (roughness from its green channel, metalness from blue).
 */
export async function writeUsdz(scene: FlatScene, title: string): Promise<Uint8Array> {
  const { entries, textures } = await materialTable(scene);
  const out: string[] = [
    '#usda 1.0',
    '(',
    '    customLayerData = {',
    '        string creator = "Vitrine"',
    `        string title = ${quote(title)}`,
    '    }',
    '    defaultPrim = "Root"',
    '    metersPerUnit = 1',
    '    upAxis = "Y"',
    ')',
    '',
    'def Xform "Root" (',
    '    kind = "component"',
    ')',
    '{',
  ];
  if (entries.size > 0) {
    out.push('    def Scope "Materials"', '    {');
    for (const entry of entries.values()) out.push(...materialLines(entry));
    out.push('    }');
  }
  const names = new Set<string>(['Materials']);
  for (const part of scene.parts) {
    if (part.primitives.length === 0) continue;
    out.push(`    def Xform ${quote(uniqueName(identifier(part.name, 'Part'), names))}`, '    {');
    part.primitives.forEach((primitive, index) => {
      const entry = primitive.material ? entries.get(primitive.material) : undefined;
      out.push(...meshLines(primitive, `Mesh_${index}`, entry));
    });
    out.push('    }');
  }
  out.push('}', '');
  return writeZip(
    [
      { name: USDZ_ROOT_LAYER, data: new TextEncoder().encode(out.join('\n')) },
      ...textures.map((texture) => ({ name: texture.path, data: texture.data })),
    ],
    { deflate: false, align: USDZ_ALIGNMENT },
  );
}

function materialLines(entry: MaterialEntry): string[] {
  const path = `/Root/Materials/${entry.name}`;
  const [r, g, b, a] = entry.baseColor;
  const opacity = entry.blend ? a : 1;
  const { baseColorTexture: colour, normalTexture: normal, metallicRoughnessTexture: packed } = entry;
  const lines = [
    `        def Material "${entry.name}"`,
    '        {',
    `            token outputs:surface.connect = <${path}/Surface.outputs:surface>`,
    '',
    '            def Shader "Surface"',
    '            {',
    '                uniform token info:id = "UsdPreviewSurface"',
    `                color3f inputs:diffuseColor = (${num(r)}, ${num(g)}, ${num(b)})`,
  ];
  if (colour)
    lines.push(`                color3f inputs:diffuseColor.connect = <${path}/BaseColor.outputs:rgb>`);
  lines.push(`                float inputs:opacity = ${num(opacity)}`);
  if (colour && entry.blend)
    lines.push(`                float inputs:opacity.connect = <${path}/BaseColor.outputs:a>`);
  // With a texture connected, the plain values are the fallback a reader uses when it cannot load the image.
  lines.push(`                float inputs:metallic = ${num(entry.metallic)}`);
  if (packed)
    lines.push(`                float inputs:metallic.connect = <${path}/MetallicRoughness.outputs:b>`);
  lines.push(`                float inputs:roughness = ${num(entry.roughness)}`);
  if (packed)
    lines.push(`                float inputs:roughness.connect = <${path}/MetallicRoughness.outputs:g>`);
  if (normal) lines.push(`                normal3f inputs:normal.connect = <${path}/Normal.outputs:rgb>`);
  lines.push(
    `                float inputs:ior = ${num(entry.ior)}`,
    '                token outputs:surface',
    '            }',
  );
  if (colour || normal || packed) {
    lines.push(
      '',
      '            def Shader "TexCoords"',
      '            {',
      '                uniform token info:id = "UsdPrimvarReader_float2"',
      '                string inputs:varname = "st"',
      '                float2 outputs:result',
      '            }',
    );
  }
  // Each texture is multiplied by its glTF factor, as glTF does.
  if (colour) {
    lines.push(
      ...textureLines(path, 'BaseColor', colour.path, 'sRGB', {
        scale: [r, g, b, opacity],
        outputs: ['float3 outputs:rgb', 'float outputs:a'],
      }),
    );
  }
  if (normal) {
    // 8-bit normals are stored as 0–1: scale 2 and bias −1 bring them back to −1…1 (x and y by the normal scale).
    const s = entry.normalScale;
    lines.push(
      ...textureLines(path, 'Normal', normal.path, 'raw', {
        scale: [2 * s, 2 * s, 2, 1],
        bias: [-s, -s, -1, 0],
        outputs: ['float3 outputs:rgb'],
      }),
    );
  }
  if (packed) {
    lines.push(
      ...textureLines(path, 'MetallicRoughness', packed.path, 'raw', {
        scale: [1, entry.roughnessFactor, entry.metallicFactor, 1],
        outputs: ['float outputs:g', 'float outputs:b'],
      }),
    );
  }
  lines.push('        }');
  return lines;
}

function textureLines(
  materialPath: string,
  name: string,
  file: string,
  colourSpace: 'sRGB' | 'raw',
  values: { scale: number[]; bias?: number[]; outputs: string[] },
): string[] {
  const lines = [
    '',
    `            def Shader "${name}"`,
    '            {',
    '                uniform token info:id = "UsdUVTexture"',
    `                asset inputs:file = @${file}@`,
    `                float2 inputs:st.connect = <${materialPath}/TexCoords.outputs:result>`,
    `                float4 inputs:scale = (${values.scale.map(num).join(', ')})`,
  ];
  if (values.bias) lines.push(`                float4 inputs:bias = (${values.bias.map(num).join(', ')})`);
  lines.push(
    `                token inputs:sourceColorSpace = "${colourSpace}"`,
    '                token inputs:wrapS = "repeat"',
    '                token inputs:wrapT = "repeat"',
    ...values.outputs.map((output) => `                ${output}`),
    '            }',
  );
  return lines;
}

function meshLines(primitive: FlatPrimitive, name: string, entry: MaterialEntry | undefined): string[] {
  const { positions, normals, uvs, indices } = primitive;
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const points: string[] = [];
  for (let i = 0; i < positions.length; i += 3) {
    for (let axis = 0; axis < 3; axis++) {
      min[axis] = Math.min(min[axis], positions[i + axis]);
      max[axis] = Math.max(max[axis], positions[i + axis]);
    }
    points.push(`(${num(positions[i])}, ${num(positions[i + 1])}, ${num(positions[i + 2])})`);
  }
  const lines = [
    `        def Mesh "${name}" (`,
    '            prepend apiSchemas = ["MaterialBindingAPI"]',
    '        )',
    '        {',
    `            uniform bool doubleSided = ${entry?.doubleSided ? 1 : 0}`,
    `            float3[] extent = [(${min.map(num).join(', ')}), (${max.map(num).join(', ')})]`,
    `            int[] faceVertexCounts = [${new Array(indices.length / 3).fill(3).join(', ')}]`,
    `            int[] faceVertexIndices = [${Array.from(indices).join(', ')}]`,
    `            point3f[] points = [${points.join(', ')}]`,
  ];
  if (normals) {
    const values: string[] = [];
    for (let i = 0; i < normals.length; i += 3) {
      values.push(`(${num(normals[i])}, ${num(normals[i + 1])}, ${num(normals[i + 2])})`);
    }
    lines.push(
      `            normal3f[] normals = [${values.join(', ')}] (`,
      '                interpolation = "vertex"',
      '            )',
    );
  }
  if (uvs) {
    const values: string[] = [];
    // USD's t counts up from the bottom of the image, glTF's v down from the top.
    for (let i = 0; i < uvs.length; i += 2) values.push(`(${num(uvs[i])}, ${num(1 - uvs[i + 1])})`);
    lines.push(
      `            texCoord2f[] primvars:st = [${values.join(', ')}] (`,
      '                interpolation = "vertex"',
      '            )',
    );
  }
  lines.push(
    '            uniform token orientation = "rightHanded"',
    '            uniform token subdivisionScheme = "none"',
  );
  if (entry) lines.push(`            rel material:binding = </Root/Materials/${entry.name}>`);
  lines.push('        }');
  return lines;
}

/** A USDA string literal. */
function quote(text: string): string {
  return JSON.stringify([...text].map((c) => (c < ' ' ? ' ' : c)).join(''));
}
