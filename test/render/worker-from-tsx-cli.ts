// Run by render-in-worker.test.ts under the tsx command line (as `npm start` runs the service):
// renders a sample in a worker thread and prints the PNG's size and signature.
import { renderThumbnailInWorker } from '../../src/render/render-in-worker.ts';
import { readSampleGlb } from './fixtures.ts';

const png = await renderThumbnailInWorker(await readSampleGlb('glb/MultiUVTest.glb'), {
  width: 64,
  height: 64,
});
process.stdout.write(JSON.stringify({ bytes: png.length, signature: png.subarray(1, 4).toString('latin1') }));
