// The bulk lookup of 100,000 groups with and without `configuration_id`, side by side in one run, in process
// through `app.inject` (request to last byte of the reply), on SQLite and, when TEST_DATABASE_URL is set, on
// PostgreSQL. The configuration binds half of the groups to another material. Each kind is timed read in full
// (LOOKUP_CACHE_MB=0, every request reads the database) and repeated with the cache on, alternating the two kinds
// run by run so both see the same machine. Usage: TEST_DATABASE_URL=postgres://… nice npx tsx bench/configured-lookup.ts
import { randomUUID } from 'node:crypto';
import { testDialects } from '../test/helpers/databases.ts';
import { generatedGroupId } from '../test/helpers/generated-parts.ts';
import { addModelWithParts } from '../test/helpers/model-with-parts.ts';
import { createTestApp, type TestApp } from '../test/helpers/test-app.ts';

const GROUPS = 100_000;
const RUNS = Number(process.env.CONFIGURED_LOOKUP_RUNS ?? 7);

async function call(testApp: TestApp, method: string, url: string, body: unknown) {
  const started = performance.now();
  const response = await testApp.app.inject({
    method: method as 'POST',
    url,
    headers: { ...testApp.auth, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  const ms = performance.now() - started;
  if (response.statusCode >= 300)
    throw new Error(`${method} ${url} answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
  return { ms, body: response.body };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Median ms of the plain and the configured lookup, alternating, after one warm-up each. */
async function measure(dialect: 'sqlite' | 'postgres', cacheMb: string): Promise<[number, number]> {
  const testApp = await createTestApp(dialect, { LOOKUP_CACHE_MB: cacheMb });
  try {
    const modelId = randomUUID();
    const groupIds = Array.from({ length: GROUPS }, (_, index) => generatedGroupId(index));
    await addModelWithParts(testApp.database, modelId, groupIds);
    const material = async (name: string) =>
      JSON.parse((await call(testApp, 'POST', '/api/v1/materials', { name })).body).data.id as number;
    const red = await material('red');
    const blue = await material('blue');
    await call(testApp, 'POST', `/api/v1/materials/${red}/bindings`, { group_ids: groupIds });
    const created = await call(testApp, 'POST', `/api/models/${modelId}/configurations`, {
      name: 'Half blue',
    });
    const cid = JSON.parse(created.body).data.id as string;
    await call(testApp, 'PUT', `/api/models/${modelId}/configurations/${cid}/bindings`, {
      bindings: groupIds.filter((_, i) => i % 2 === 0).map((group_id) => ({ group_id, material_id: blue })),
    });
    const plainBody = { group_ids: groupIds };
    const configuredBody = { group_ids: groupIds, configuration_id: cid };
    const plain: number[] = [];
    const configured: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const a = await call(testApp, 'POST', '/api/v1/groups/materials', plainBody);
      const b = await call(testApp, 'POST', '/api/v1/groups/materials', configuredBody);
      if (run === 0) continue;
      plain.push(a.ms);
      configured.push(b.ms);
    }
    return [median(plain), median(configured)];
  } finally {
    await testApp.close();
  }
}

const rows: string[][] = [];
for (const dialect of testDialects()) {
  for (const [label, cacheMb] of [
    ['read in full', '0'],
    ['repeated, cache on', '128'],
  ] as const) {
    const [plain, configured] = await measure(dialect, cacheMb);
    rows.push([
      `${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${label}`,
      plain.toFixed(0),
      configured.toFixed(0),
      (configured / plain).toFixed(2),
    ]);
  }
}
console.log(
  `| lookup of ${GROUPS.toLocaleString('en')} groups (median of ${RUNS}) | plain ms | with configuration_id ms | ratio |`,
);
console.log('|---|---:|---:|---:|');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
