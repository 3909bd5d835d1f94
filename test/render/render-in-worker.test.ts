import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { renderThumbnailInWorker } from '../../src/render/render-in-worker.ts';
import { renderThumbnail } from '../../src/render/render-thumbnail.ts';
import { readSampleGlb } from './fixtures.ts';
import { decodeRgba } from './silhouette.ts';

void describe('renderThumbnailInWorker', () => {
  void it('renders the same picture as in-process, with options passed through', async () => {
    const glb = await readSampleGlb('glb/MultiUVTest.glb');
    const options = {
      width: 96,
      height: 64,
      materialOverrides: new Map([['none', { color: [1, 0, 0] as [number, number, number], alpha: 1 }]]),
    };
    const inWorker = await decodeRgba(await renderThumbnailInWorker(glb, options));
    const inProcess = await decodeRgba(await renderThumbnail(glb, options));
    assert.deepEqual([inWorker.width, inWorker.height], [96, 64]);
    assert.deepEqual(inWorker.data, inProcess.data);
  });

  void it("rejects with the render's own error", async () => {
    await assert.rejects(renderThumbnailInWorker(new Uint8Array(64)), { message: /not a GLB file/ });
  });

  void it('rejects and stops the worker after the timeout', async () => {
    const glb = await readSampleGlb('glb/barrel.glb');
    await assert.rejects(renderThumbnailInWorker(glb, { timeoutMs: 20 }), {
      message: /timed out after 20 ms/,
    });
  });

  void it('works when the process was started by the tsx command line, as the service is', async () => {
    const tsxCli = createRequire(import.meta.url).resolve('tsx/cli');
    const script = fileURLToPath(new URL('./worker-from-tsx-cli.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [tsxCli, script], { timeout: 60_000 });
    const result = JSON.parse(stdout) as { bytes: number; signature: string };
    assert.equal(result.signature, 'PNG');
    assert.ok(result.bytes > 1000);
  });
});
