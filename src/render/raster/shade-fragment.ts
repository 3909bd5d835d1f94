import type { DrawPrimitive } from '../draw-primitive.ts';
import type { Lighting } from './lighting.ts';
import { sampleTexture } from './sample-texture.ts';

/**
 * Shades triangle `t` of `p` at screen point (px, py): perspective-correct barycentrics from the
 * projected vertices in `screen` (x, y, z, 1/w per vertex), base colour × vertex colour × texture,
 * then Lambert key + fill, hemisphere ambient and a Blinn-Phong highlight. Writes linear RGBA
 * (straight alpha) to `out[0..3]`; `texel` is scratch space so nothing is allocated per pixel.
 */
export function shadeFragment(
  p: DrawPrimitive,
  screen: Float32Array,
  t: number,
  px: number,
  py: number,
  light: Lighting,
  texel: Float32Array,
  out: Float32Array,
): void {
  if (p.points) {
    shadePoint(p, t, out);
    return;
  }
  const indices = p.indices;
  const i0 = indices[t * 3];
  const i1 = indices[t * 3 + 1];
  const i2 = indices[t * 3 + 2];
  const x0 = screen[i0 * 4];
  const y0 = screen[i0 * 4 + 1];
  const x1 = screen[i1 * 4];
  const y1 = screen[i1 * 4 + 1];
  const x2 = screen[i2 * 4];
  const y2 = screen[i2 * 4 + 1];
  const area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
  let b0 = ((x2 - x1) * (py - y1) - (y2 - y1) * (px - x1)) / area;
  let b1 = ((x0 - x2) * (py - y2) - (y0 - y2) * (px - x2)) / area;
  let b2 = 1 - b0 - b1;
  // Perspective correction: interpolate attribute/w and 1/w linearly in screen space.
  b0 *= screen[i0 * 4 + 3];
  b1 *= screen[i1 * 4 + 3];
  b2 *= screen[i2 * 4 + 3];
  const inv = 1 / (b0 + b1 + b2);
  b0 *= inv;
  b1 *= inv;
  b2 *= inv;

  let r = p.baseColor[0];
  let g = p.baseColor[1];
  let b = p.baseColor[2];
  let a = p.baseColor[3];
  const colors = p.colors;
  if (colors !== null) {
    r *= colors[i0 * 4] * b0 + colors[i1 * 4] * b1 + colors[i2 * 4] * b2;
    g *= colors[i0 * 4 + 1] * b0 + colors[i1 * 4 + 1] * b1 + colors[i2 * 4 + 1] * b2;
    b *= colors[i0 * 4 + 2] * b0 + colors[i1 * 4 + 2] * b1 + colors[i2 * 4 + 2] * b2;
    a *= colors[i0 * 4 + 3] * b0 + colors[i1 * 4 + 3] * b1 + colors[i2 * 4 + 3] * b2;
  }
  const uvs = p.uvs;
  if (uvs !== null && p.texture !== null) {
    const u = uvs[i0 * 2] * b0 + uvs[i1 * 2] * b1 + uvs[i2 * 2] * b2;
    const v = uvs[i0 * 2 + 1] * b0 + uvs[i1 * 2 + 1] * b1 + uvs[i2 * 2 + 1] * b2;
    sampleTexture(p.texture, p.wrapS, p.wrapT, u, v, texel);
    r *= texel[0];
    g *= texel[1];
    b *= texel[2];
    a *= texel[3];
  }
  out[3] = a;
  let er = p.emissive[0];
  let eg = p.emissive[1];
  let eb = p.emissive[2];
  const emissiveUvs = p.emissiveUvs;
  if (emissiveUvs !== null && p.emissiveTexture !== null) {
    const u = emissiveUvs[i0 * 2] * b0 + emissiveUvs[i1 * 2] * b1 + emissiveUvs[i2 * 2] * b2;
    const v = emissiveUvs[i0 * 2 + 1] * b0 + emissiveUvs[i1 * 2 + 1] * b1 + emissiveUvs[i2 * 2 + 1] * b2;
    sampleTexture(p.emissiveTexture, p.emissiveWrapS, p.emissiveWrapT, u, v, texel);
    er *= texel[0];
    eg *= texel[1];
    eb *= texel[2];
  }
  if (p.unlit) {
    out[0] = r;
    out[1] = g;
    out[2] = b;
    return;
  }

  const pos = p.positions;
  const wx = pos[i0 * 3] * b0 + pos[i1 * 3] * b1 + pos[i2 * 3] * b2;
  const wy = pos[i0 * 3 + 1] * b0 + pos[i1 * 3 + 1] * b1 + pos[i2 * 3 + 1] * b2;
  const wz = pos[i0 * 3 + 2] * b0 + pos[i1 * 3 + 2] * b1 + pos[i2 * 3 + 2] * b2;
  let nx: number, ny: number, nz: number;
  const normals = p.normals;
  if (normals !== null) {
    nx = normals[i0 * 3] * b0 + normals[i1 * 3] * b1 + normals[i2 * 3] * b2;
    ny = normals[i0 * 3 + 1] * b0 + normals[i1 * 3 + 1] * b1 + normals[i2 * 3 + 1] * b2;
    nz = normals[i0 * 3 + 2] * b0 + normals[i1 * 3 + 2] * b1 + normals[i2 * 3 + 2] * b2;
  } else {
    // No normals in the file: shade flat with the face normal.
    const ax = pos[i1 * 3] - pos[i0 * 3];
    const ay = pos[i1 * 3 + 1] - pos[i0 * 3 + 1];
    const az = pos[i1 * 3 + 2] - pos[i0 * 3 + 2];
    const cx = pos[i2 * 3] - pos[i0 * 3];
    const cy = pos[i2 * 3 + 1] - pos[i0 * 3 + 1];
    const cz = pos[i2 * 3 + 2] - pos[i0 * 3 + 2];
    nx = ay * cz - az * cy;
    ny = az * cx - ax * cz;
    nz = ax * cy - ay * cx;
  }
  let len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  // Screen y points down, so a counter-clockwise (front) triangle has negative area here.
  const s = len > 0 ? (area < 0 ? 1 / len : -1 / len) : 0;
  nx *= s;
  ny *= s;
  nz *= s;

  let vx = light.eye[0] - wx;
  let vy = light.eye[1] - wy;
  let vz = light.eye[2] - wz;
  len = Math.sqrt(vx * vx + vy * vy + vz * vz) || 1;
  vx /= len;
  vy /= len;
  vz /= len;

  const key = light.key;
  const fill = light.fill;
  const keyDot = nx * key[0] + ny * key[1] + nz * key[2];
  const ndk = keyDot > 0 ? keyDot : 0;
  const fillDot = nx * fill[0] + ny * fill[1] + nz * fill[2];
  const ndf = fillDot > 0 ? fillDot : 0;
  const h = ny * 0.5 + 0.5;
  let spec = 0;
  if (ndk > 0) {
    let hx = key[0] + vx;
    let hy = key[1] + vy;
    let hz = key[2] + vz;
    len = Math.sqrt(hx * hx + hy * hy + hz * hz) || 1;
    hx /= len;
    hy /= len;
    hz /= len;
    const ndh = nx * hx + ny * hy + nz * hz;
    if (ndh > 0) spec = p.specular * Math.pow(ndh, p.shininess);
  }
  const kc = light.keyColor;
  const fc = light.fillColor;
  const sky = light.sky;
  const ground = light.ground;
  out[0] = r * (ground[0] + (sky[0] - ground[0]) * h + kc[0] * ndk + fc[0] * ndf) + spec * kc[0] + er;
  out[1] = g * (ground[1] + (sky[1] - ground[1]) * h + kc[1] * ndk + fc[1] * ndf) + spec * kc[1] + eg;
  out[2] = b * (ground[2] + (sky[2] - ground[2]) * h + kc[2] * ndk + fc[2] * ndf) + spec * kc[2] + eb;
}

/** A point's colour, base colour × vertex colour, unlit: points carry no normal, and scans carry their light in their colours. */
function shadePoint(p: DrawPrimitive, v: number, out: Float32Array): void {
  const colors = p.colors;
  out[0] = p.baseColor[0] * (colors === null ? 1 : colors[v * 4]);
  out[1] = p.baseColor[1] * (colors === null ? 1 : colors[v * 4 + 1]);
  out[2] = p.baseColor[2] * (colors === null ? 1 : colors[v * 4 + 2]);
  out[3] = p.baseColor[3] * (colors === null ? 1 : colors[v * 4 + 3]);
}
