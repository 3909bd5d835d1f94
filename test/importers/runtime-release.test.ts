import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { IMPORT_IFC_DEFAULTS, importIfc } from '../../src/pipeline/import/ifc/import-ifc.ts';
import {
  KeptRuntime,
  KEEP_RUNTIME_UP_TO_BYTES,
  RELEASE_AFTER_INPUT_BYTES,
  releaseAfterImport,
} from '../../src/pipeline/import/runtime-release.ts';
import { runtimeLoads } from '../../src/pipeline/import/runtime-loads.ts';
import { MODELS, recordingContext } from './support.ts';
import { collected } from '../helpers/collected.ts';

const MIB = 1024 * 1024;

/** A module whose memory is `bytes` long, as Emscripten shows it. */
const moduleOf = (bytes: number) => ({ HEAPU8: { byteLength: bytes } as Uint8Array });

void test('a runtime is kept after a small input, and let go after a big input or when its memory grew large', () => {
  assert.equal(releaseAfterImport({ HEAPU8: new Uint8Array(16) }, RELEASE_AFTER_INPUT_BYTES - 1), false);
  assert.equal(releaseAfterImport({ HEAPU8: new Uint8Array(16) }, RELEASE_AFTER_INPUT_BYTES), true);
  // A Uint8Array is what Emscripten hands out; anything else does not show the memory, and the runtime goes.
  assert.equal(releaseAfterImport(moduleOf(KEEP_RUNTIME_UP_TO_BYTES + 1), MIB), true);
  assert.equal(releaseAfterImport({}, MIB), true);
  assert.equal(releaseAfterImport(undefined, MIB), true);
});

void test('a kept runtime loads once, and again after a failed load, a drop or a big import', async () => {
  let made = 0;
  let fail = true;
  const kept = new KeptRuntime(async () => {
    made++;
    if (fail) throw new Error('no memory');
    return { id: made, HEAPU8: new Uint8Array(16) };
  });
  const loads = runtimeLoads();
  await assert.rejects(kept.get(), /no memory/);
  fail = false;
  const first = await kept.get();
  assert.equal(await kept.get(), first, 'kept for the next import');
  await kept.releaseAfter(first, MIB);
  assert.equal(await kept.get(), first, 'a small import keeps it');
  await kept.releaseAfter(first, RELEASE_AFTER_INPUT_BYTES);
  const second = await kept.get();
  assert.notEqual(second.id, first.id, 'a big import lets it go');
  kept.drop();
  assert.notEqual((await kept.get()).id, second.id, 'a drop lets it go');
  assert.equal(made, 4);
  assert.equal(runtimeLoads(), loads + 4, 'each load counted');
});

void test("web-ifc's runtime is kept after a small file, and let go and freed after a big one", async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vitrine-runtime-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const small = path.join(MODELS, 'ifc', 'beam-standard-case.ifc');
  const text = await readFile(small, 'latin1');
  // The same beam with a comment that makes the file big: web-ifc skips it, the import reads the same model.
  const dataStart = text.indexOf('DATA;') + 'DATA;'.length;
  const padding = `\n/* ${'x'.repeat(RELEASE_AFTER_INPUT_BYTES)} */\n`;
  const big = path.join(dir, 'beam-padded.ifc');
  await writeFile(big, text.slice(0, dataStart) + padding + text.slice(dataStart), 'latin1');
  const read = (file: string) =>
    importIfc.read({ file, dir: path.dirname(file), format: 'ifc' }, recordingContext());

  const nodes = (await read(small)).document.getRoot().listNodes().length;
  let kept = (await IMPORT_IFC_DEFAULTS.loadIfc()).api;
  await read(small);
  // Compared as booleans: a failed comparison of two runtimes would print their whole memory.
  assert.ok(
    (await IMPORT_IFC_DEFAULTS.loadIfc()).api === kept,
    'a small file keeps the runtime for the next import',
  );

  const loads = runtimeLoads();
  const padded = await read(big);
  assert.equal(padded.document.getRoot().listNodes().length, nodes, 'the padded file is the same model');
  assert.ok((await IMPORT_IFC_DEFAULTS.loadIfc()).api !== kept, 'a big file lets the runtime go');
  assert.equal(runtimeLoads(), loads + 1, 'and the next import loads a new one');
  const gone = new WeakRef(kept.wasmModule as object);
  kept = undefined as unknown as typeof kept;
  assert.ok(await collected(gone), "the runtime's memory is freed");
});
