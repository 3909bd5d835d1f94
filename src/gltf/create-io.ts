import { NodeIO } from '@gltf-transform/core';
import { GLTF_EXTENSIONS } from './gltf-extensions.ts';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
// Every process that reads or writes glTF loads this module, so the graph's unheard events are skipped in all.
import './quiet-graph-events.ts';

/**
 * A glTF-Transform `NodeIO` that reads every extension glTF-Transform knows, including
 * meshopt-compressed buffers, so any valid glTF input opens.
 */
export async function createNodeIO(): Promise<NodeIO> {
  await Promise.all([MeshoptDecoder.ready, MeshoptEncoder.ready]);
  return new NodeIO().registerExtensions(GLTF_EXTENSIONS).registerDependencies({
    'meshopt.decoder': MeshoptDecoder,
    'meshopt.encoder': MeshoptEncoder,
  });
}
