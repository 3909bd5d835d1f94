// Left-overs nothing removed: 72 MB job folders after a killed conversion, partial uploads, `.partial` files
// after a full disk. The start-up sweep removes those of dead processes and keeps a live one's; the worker
// empties its scratch folder when its last job ends; a failed write removes its own partial at once.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createFileStore } from '../../src/storage/file-store.ts';
import { processTag, scratchDir, sweepLeftovers } from '../../src/storage/sweep-leftovers.ts';
import { JobName, type JobHandlers } from '../../src/jobs/job-types.ts';
import { createLogger } from '../../src/logger.ts';
import { sweepWhenIdle } from '../../src/job-runner.ts';

/** A pid that surely belongs to no process: a child that has already exited. */
function deadPid(): number {
  return Number(
    spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString(),
  );
}

function write(file: string, bytes = 16): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, Buffer.alloc(bytes));
  return file;
}

void describe('left-over sweep', () => {
  let dataDir: string;
  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-sweep-'));
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  void it("removes the job folders, uploads and partial files of dead processes and keeps a live one's", async () => {
    const dead = processTag(deadPid());
    const live = processTag(process.ppid);
    const jobs = path.join(dataDir, 'tmp', 'jobs');
    const uploads = path.join(dataDir, 'tmp', 'uploads');
    const store = path.join(dataDir, 'files');
    const gone = [
      write(path.join(jobs, dead, 'convert-abc-123', 'upload', 'big.ply'), 1024 * 1024),
      write(path.join(jobs, processTag(), 'convert-own-from-before-a-restart', 'x.glb')),
      write(path.join(uploads, dead, 'a.upload')),
      write(path.join(store, 'models', 'm1', `lod0-abc.glb.${dead}.partial`)),
      write(path.join(store, 'models', 'm1', `thumb.png.${deadPid()}.partial`)),
    ];
    const oldForeign = write(path.join(jobs, 'other-host-7', 'convert-x', 'a'));
    const old = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    fs.utimesSync(path.join(jobs, 'other-host-7'), old, old);
    const kept = [
      write(path.join(jobs, live, 'convert-running', 'a')),
      write(path.join(uploads, live, 'b.upload')),
      write(path.join(jobs, 'other-host-8', 'convert-y', 'a')),
      write(path.join(store, 'models', 'm1', `lod0-def.glb.${live}.partial`)),
      write(path.join(store, 'models', 'm1', 'lod0-abc.glb')),
    ];
    const removed = await sweepLeftovers({ dataDir, storeRoot: store });
    for (const file of [...gone, oldForeign]) assert.equal(fs.existsSync(file), false, `${file} removed`);
    for (const file of kept) assert.equal(fs.existsSync(file), true, `${file} kept`);
    assert.equal(removed.length, gone.length + 1, removed.join('\n'));
  });

  void it('empties the worker scratch folder once its last running job ends', async () => {
    const jobs = path.join(dataDir, 'tmp', 'jobs');
    const own = scratchDir(jobs);
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    const handler = (leave: string, wait?: Promise<void>) => ({
      run: async () => {
        write(path.join(own, leave, 'left.bin'));
        await wait;
        throw new Error('the thread was killed before it cleaned up');
      },
      failed: async () => {},
    });
    const handlers = sweepWhenIdle(
      {
        [JobName.ConvertModel]: handler('first', blocked),
        [JobName.RenderThumbnail]: handler('second'),
        [JobName.ExportModel]: handler('third'),
      } as unknown as JobHandlers,
      jobs,
      createLogger('silent'),
    );
    const signal = new AbortController().signal;
    const first = handlers[JobName.ConvertModel].run({} as never, signal).catch(() => {});
    await handlers[JobName.RenderThumbnail].run({} as never, signal).catch(() => {});
    assert.ok(fs.existsSync(path.join(own, 'first')), 'a running job keeps its folder');
    release();
    await first;
    assert.deepEqual(fs.readdirSync(own), [], 'nothing left once no job runs');
  });

  void it('removes the partial file of a write that fails', async () => {
    const store = createFileStore(path.join(dataDir, 'store'));
    fs.mkdirSync(path.join(dataDir, 'store', 'models', 'm2', 'lod0.glb'), { recursive: true });
    // A folder where the file should go makes the rename fail after the partial was written.
    await assert.rejects(store.putBytes('models/m2/lod0.glb', new Uint8Array(64)));
    assert.deepEqual(
      fs.readdirSync(path.join(dataDir, 'store', 'models', 'm2')).filter((name) => name.endsWith('.partial')),
      [],
    );
  });
});
