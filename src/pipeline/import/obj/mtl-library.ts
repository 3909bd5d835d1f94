/** One `newmtl` of an MTL file: the values Vitrine turns into a glTF material. */
export interface MtlMaterial {
  name: string;
  /** `Kd`, in sRGB as written: MTL colours are display values (three.js's MTLLoader and Blender read them so). */
  diffuse?: [number, number, number];
  /** `Ks`. */
  specular?: [number, number, number];
  /** `Ke`. */
  emissive?: [number, number, number];
  /** `Ns`, 0–1000. */
  shininess?: number;
  /** `d`, or 1 − `Tr`, whichever the file gives last. */
  opacity?: number;
  /** `Pr` (PBR extension). */
  roughness?: number;
  /** `Pm` (PBR extension). */
  metallic?: number;
  /** `Ni`, the index of refraction. */
  ior?: number;
  /** `map_Kd`: the image file as written, options removed. */
  diffuseMap?: string;
  /** `map_Ke`. */
  emissiveMap?: string;
  /** `norm` or `map_Kn`: a tangent-space normal map. */
  normalMap?: string;
  /** `map_Pr` (PBR extension): a grey roughness image. */
  roughnessMap?: string;
  /** `map_Pm` (PBR extension): a grey metalness image. */
  metallicMap?: string;
}

/** Texture options (`-o 0 0 0`, `-clamp on`, …) that may come before an image's file name. */
const OPTION_ARGUMENTS: Record<string, number> = {
  '-blendu': 1,
  '-blendv': 1,
  '-boost': 1,
  '-mm': 2,
  '-o': 3,
  '-s': 3,
  '-t': 3,
  '-texres': 1,
  '-clamp': 1,
  '-bm': 1,
  '-imfchan': 1,
  '-type': 1,
  '-cc': 1,
};

/**
 * Reads the materials of an MTL file (small text, read whole): colours, shininess, opacity, `Ni`, the PBR `Pr`/`Pm`
 * extension and the diffuse, emissive, normal, roughness and metalness maps. Statements it does not use are skipped.
 */
export function parseMtl(text: string): MtlMaterial[] {
  const materials: MtlMaterial[] = [];
  let current: MtlMaterial | undefined;
  for (const raw of text.replace(/\\\r?\n/g, ' ').split(/\r?\n|\r/)) {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    const [keyword, ...words] = line.split(/\s+/);
    const rest = line.slice(keyword.length).trim();
    if (keyword === 'newmtl') {
      current = { name: rest };
      materials.push(current);
      continue;
    }
    if (!current) continue;
    const numbers = words.map(Number);
    const color = (): [number, number, number] | undefined =>
      numbers.length >= 3 && numbers.slice(0, 3).every(Number.isFinite)
        ? [numbers[0], numbers[1], numbers[2]]
        : numbers.length >= 1 && Number.isFinite(numbers[0])
          ? [numbers[0], numbers[0], numbers[0]]
          : undefined;
    const scalar = Number.isFinite(numbers[0]) ? numbers[0] : undefined;
    switch (keyword.toLowerCase()) {
      case 'kd':
        current.diffuse = color() ?? current.diffuse;
        break;
      case 'ks':
        current.specular = color() ?? current.specular;
        break;
      case 'ke':
        current.emissive = color() ?? current.emissive;
        break;
      case 'ns':
        current.shininess = scalar ?? current.shininess;
        break;
      case 'd':
        current.opacity = scalar ?? current.opacity;
        break;
      case 'tr':
        current.opacity = scalar === undefined ? current.opacity : 1 - scalar;
        break;
      case 'pr':
        current.roughness = scalar ?? current.roughness;
        break;
      case 'pm':
        current.metallic = scalar ?? current.metallic;
        break;
      case 'ni':
        current.ior = scalar ?? current.ior;
        break;
      case 'map_kd':
        current.diffuseMap = imageName(words) ?? current.diffuseMap;
        break;
      case 'map_ke':
        current.emissiveMap = imageName(words) ?? current.emissiveMap;
        break;
      case 'norm':
      case 'map_kn':
        current.normalMap = imageName(words) ?? current.normalMap;
        break;
      case 'map_pr':
        current.roughnessMap = imageName(words) ?? current.roughnessMap;
        break;
      case 'map_pm':
        current.metallicMap = imageName(words) ?? current.metallicMap;
        break;
    }
  }
  return materials;
}

/** The file name of a `map_…` statement after its options; names may contain spaces. */
function imageName(words: string[]): string | undefined {
  let at = 0;
  while (at < words.length && words[at].startsWith('-') && words[at].toLowerCase() in OPTION_ARGUMENTS) {
    const most = OPTION_ARGUMENTS[words[at].toLowerCase()];
    at++;
    // -o, -s and -t take one to three numbers; the others a fixed number of words.
    for (let taken = 0; taken < most && at < words.length - 1; taken++) {
      if (most === 3 && !Number.isFinite(Number(words[at]))) break;
      at++;
    }
  }
  const name = words.slice(at).join(' ');
  return name === '' ? undefined : name;
}
