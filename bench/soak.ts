// Reliability soak: the real system at scale under faults. Two `vitrine serve` and two `vitrine worker` processes on
// PostgreSQL (a database of its own on TEST_DATABASE_URL, dropped after), Redis (TEST_REDIS_URL, a key prefix of its
// own) and S3 (s3rver, started here); the processes reach PostgreSQL and Redis only through TCP proxies the bench
// can freeze. It sends 200 uploads of small sample models (glb, fbx, obj, ply, stl, step, ifc), paced over 6 minutes
// and alternating between the two serves, a third each: multipart sent once, multipart with an `Idempotency-Key`
// and tus followed by `POST /api/models {upload_id}`, the last two retried on the other serve with the same key or
// id while the answer is a 5xx, 409, 429 or none. Meanwhile it injects 10 faults, one at a time, at random times:
// kill -9 of a worker or a serve (restarted a second later with the same settings), PostgreSQL or Redis frozen for
// 20 s (connections held, nothing moves) and S3 stopped for 10 s. Then it waits up to 5 minutes for every
// acknowledged model to finish and reads the database: acknowledged / completed / failed / stuck (still pending or
// processing) / duplicated (more than one model for one upload: by the marker `soak-<seed>-<n>` that starts each
// model's name, by upload_id or by idempotency key) / lost (acknowledged, not in the database), the faults with
// their times, and a line per upload singled out. Also counted: uploads never acknowledged (a plain multipart that
// failed once, or retries that ran out after 4 minutes) and, of those, the ones whose model was made anyway (the
// answer lost). Exits 1 when stuck, duplicated or lost is not 0.
//
//   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres TEST_REDIS_URL=redis://127.0.0.1:6379 \
//     nice tsx bench/soak.ts [seed=1] [uploads=200] [faults=10] [span seconds=360]
//
// The same seed gives the same fault schedule and the same uploads. The processes' output (serve and worker at info
// level, one file per process, appended across its restarts) is kept under $TMPDIR/vitrine-soak-<seed>/ for what the
// report singles out; `npm run bench -- soak` runs it with seed 1.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SAMPLE_MODELS } from '../test/helpers/sample-models.ts';
import { sleep } from '../test/system/service-process.ts';
import { startBackingServices } from './backing-services.ts';
import { startSoakCluster } from './soak-cluster.ts';
import { faultSchedule, runFaults, seededRandom } from './soak-faults.ts';
import { formatReport, judge, waitForSettled } from './soak-report.ts';
import { sendUpload, type Upload, type UploadKind } from './soak-uploads.ts';

const [seed = 1, uploadCount = 200, faultCount = 10, spanSeconds = 360] = process.argv.slice(2).map(Number);
const TOKEN = 'soak-bench-token';
const SETTLE_MS = 5 * 60_000;
/** Single-file models (tus takes one file), small enough to convert in seconds, one or two per format. */
const MODELS = [
  'glb/MultiUVTest.glb',
  'glb/CesiumMilkTruck.glb',
  'fbx/cubes_with_names.fbx',
  'obj/spot_triangulated.obj',
  'ply/moebius-160-10.ply',
  'stl/cyl_w_rect_hole.stl',
  'step/red_cube_blue_cylinder.step',
  'step/screw.step',
  'ifc/beam-standard-case.ifc',
  'ifc/IfcOpenHouse_IFC4.ifc',
];
const KINDS: UploadKind[] = ['multipart', 'keyed multipart', 'tus'];

const log = (line: string) => process.stderr.write(`${line}\n`);
// The schedule is drawn first, from its own generator, so that the uploads do not shift it.
const faults = faultSchedule(seededRandom(seed), faultCount, spanSeconds * 1000);
const pick = seededRandom(seed + 1);
const uploads: Upload[] = Array.from({ length: uploadCount }, (_, index) => ({
  index,
  marker: `soak-${seed}-${index}`,
  kind: KINDS[index % KINDS.length],
  file: path.join(SAMPLE_MODELS, MODELS[Math.floor(pick() * MODELS.length)]),
  requests: 0,
}));

const logDir = path.join(os.tmpdir(), `vitrine-soak-${seed}`);
// The processes append to their logs across restarts; a new run starts them empty.
fs.rmSync(logDir, { recursive: true, force: true });
const services = await startBackingServices('soak', { freezable: true });
let exitCode = 1;
try {
  const cluster = await startSoakCluster(services, TOKEN, logDir);
  try {
    log(`4 processes up; ${uploadCount} uploads over ${spanSeconds} s, ${faultCount} faults (seed ${seed})`);
    const startedAt = performance.now();
    const faulting = runFaults(faults, startedAt, cluster, services, log);
    const sending = uploads.map(async (upload) => {
      await sleep((upload.index * spanSeconds * 1000) / uploadCount);
      await sendUpload(upload, cluster.urls, upload.index % 2, TOKEN);
    });
    await Promise.all([faulting, ...sending]);
    log(
      `${((performance.now() - startedAt) / 1000).toFixed(0)} s: uploads and faults done; waiting for conversions`,
    );
    const models = await waitForSettled(services.databaseUrl, uploads, SETTLE_MS);
    log(`${((performance.now() - startedAt) / 1000).toFixed(0)} s: settled or gave up waiting`);
    const outcome = judge(uploads, models);
    const requests = uploads.reduce((sum, upload) => sum + upload.requests, 0);
    process.stdout.write(
      `${formatReport(outcome, faults)}\nseed ${seed}, ${requests} requests for ${uploadCount} uploads, ` +
        `${os.cpus().length} cores, node ${process.version}; process logs in ${logDir}\n`,
    );
    exitCode = outcome.stuck + outcome.duplicated + outcome.lost === 0 ? 0 : 1;
  } finally {
    await cluster.stop();
  }
} finally {
  await services.dispose();
}
process.exit(exitCode);
