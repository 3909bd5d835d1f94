import { MATERIAL_DEFAULTS } from './material-defaults.ts';
import type { DefaultMaterial } from './schemas.ts';

/** The entry the bulk lookup returns for an unbound group when `include_default` is true: id -1, neutral grey. */
export const DEFAULT_MATERIAL: Readonly<DefaultMaterial> = Object.freeze({
  id: -1,
  name: 'default',
  ...MATERIAL_DEFAULTS,
  diffuse_r: 192,
  diffuse_g: 192,
  diffuse_b: 192,
  alpha: 255,
});
