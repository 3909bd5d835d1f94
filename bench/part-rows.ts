// How long a finished conversion takes to store its parts' rows (`model_parts`, `model_part_properties` and the
// current version's `model_version_parts`, in the one completing transaction) at 10,000 and 100,000 parts, on SQLite
// and, when TEST_DATABASE_URL is set, PostgreSQL; and the time per part at each size, which should grow by at most
// 1.5× from the smaller to the larger model (bulk writes cut by the engine's limit stay linear).
// Usage: TEST_DATABASE_URL=postgres://… nice npx tsx bench/part-rows.ts
import { createModelRepository } from '../src/catalog/repository.ts';
import { createTestDatabase, testDialects } from '../test/helpers/databases.ts';
import {
  createConvertingModel,
  generatedPart,
  generatedPropertyRows,
  generatedRecord,
} from '../test/helpers/generated-parts.ts';

const SIZES = [10_000, 100_000];
/** Runs per size; the median is reported. */
const RUNS = 3;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

for (const dialect of testDialects()) {
  const perPart: number[] = [];
  for (const size of SIZES) {
    const record = generatedRecord(Array.from({ length: size }, (_, index) => generatedPart(index, size)));
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const database = await createTestDatabase(dialect);
      const handle = await database.open();
      try {
        const id = `bench-${size}-${run}`;
        await createConvertingModel(handle, id);
        const start = performance.now();
        await createModelRepository(handle).complete(id, record);
        times.push(performance.now() - start);
      } finally {
        await handle.close();
        await database.dispose();
      }
    }
    const ms = median(times);
    perPart.push(ms / size);
    console.log(
      `${dialect.padEnd(8)} ${size.toLocaleString('en-US').padStart(7)} parts  ${generatedPropertyRows(size)
        .toLocaleString('en-US')
        .padStart(7)} property rows  median ${(ms / 1000).toFixed(2)} s (runs ${times
        .map((t) => (t / 1000).toFixed(2))
        .join(', ')})  ${((ms / size) * 1000).toFixed(1)} µs a part`,
    );
  }
  console.log(
    `${dialect.padEnd(8)} growth per part from 10,000 to 100,000: ${(perPart[1]! / perPart[0]!).toFixed(2)}×`,
  );
}
