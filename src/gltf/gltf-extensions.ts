import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { EXTInstanceFeatures } from './ext-instance-features.ts';

/** Every extension the service reads and writes: glTF-Transform's own and `EXT_instance_features`. */
export const GLTF_EXTENSIONS = [...ALL_EXTENSIONS, EXTInstanceFeatures];
