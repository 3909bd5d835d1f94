// A 1 GiB resumable upload (tus) cut at half and resumed, printing the time and the resident memory growth of the
// process serving it. `tsx bench/tus-upload.ts 256` sends 256 MiB instead.
import { runBigResumableUpload } from '../test/helpers/big-resumable-upload.ts';
import { createTestApp } from '../test/helpers/test-app.ts';

const MIB = 1024 * 1024;
const sizeMib = Number(process.argv[2] ?? 1024);

const testApp = await createTestApp('sqlite', {
  MAX_UPLOAD_BYTES: String(Math.max(sizeMib * MIB, 1024 * MIB)),
});
try {
  const baseUrl = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const result = await runBigResumableUpload(baseUrl, testApp.auth, sizeMib * MIB);
  const seconds = result.durationMs / 1000;
  process.stdout.write(
    '| upload | cut at | time | throughput | RSS growth |\n|---|---|---|---|---|\n' +
      `| ${(result.length / MIB).toFixed(0)} MiB | ${(result.offsetAfterCut / MIB).toFixed(0)} MiB | ` +
      `${seconds.toFixed(1)} s | ${(result.length / MIB / seconds).toFixed(0)} MiB/s | ` +
      `${(result.rssGrowthBytes / MIB).toFixed(1)} MiB |\n`,
  );
} finally {
  await testApp.close();
}
