// One contract over every way the material repository reads: SQLite's read-only connection (raw statements) and
// its query builder, PostgreSQL's named statement and its query builder. Each scenario is written once and read
// through every path; all must give the same answers.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { DatabaseHandle } from '../../src/db/create-db.ts';
import { createMaterialRepository, type MaterialRepository } from '../../src/materials/repository.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';

/** The repository over each read path of a dialect, by name. */
function readPaths(handle: DatabaseHandle): Map<string, MaterialRepository> {
  if (handle.dialect === 'sqlite') {
    assert.ok(handle.sqliteReader, 'a database file has a read-only connection');
    return new Map([
      ['read-only connection', createMaterialRepository(handle)],
      ['query builder', createMaterialRepository({ ...handle, sqliteReader: undefined })],
    ]);
  }
  assert.ok(handle.postgresPool, 'PostgreSQL has a pool for named statements');
  return new Map([
    ['named statement', createMaterialRepository(handle)],
    ['query builder', createMaterialRepository({ ...handle, postgresPool: undefined })],
  ]);
}

/** A lookup's answer in a comparable form: group id → material id and name. */
function boundNames(result: Awaited<ReturnType<MaterialRepository['lookup']>>): Record<string, string> {
  return Object.fromEntries(
    [...result.bound].map(([groupId, material]) => [groupId, `${material.id}:${material.name}`]),
  );
}

for (const dialect of testDialects()) {
  void describe(`material read paths (${dialect})`, () => {
    const database = useTestDatabase(dialect);
    let writer: MaterialRepository;
    let paths: Map<string, MaterialRepository>;
    before(async () => {
      const handle = database();
      writer = createMaterialRepository(handle);
      paths = readPaths(handle);
    });

    /** Runs `read` through every path and asserts they agree; returns the common answer. */
    async function agreed<T>(read: (repository: MaterialRepository) => Promise<T>): Promise<T> {
      const answers = new Map<string, T>();
      for (const [name, repository] of paths) answers.set(name, await read(repository));
      const [first, ...rest] = [...answers];
      for (const [name, answer] of rest)
        assert.deepEqual(answer, first![1], `${name} agrees with ${first![0]}`);
      return first![1];
    }

    void it('reads the same material, and nothing for a missing id', async () => {
      const created = await writer.create({ name: 'Steel', diffuse_r: 200, metallic: 1, roughness: 0.25 });
      const read = await agreed((repository) => repository.get(created.id));
      assert.deepEqual(read, created);
      assert.equal(await agreed((repository) => repository.get(created.id + 1000)), undefined);
    });

    void it('answers the same lookup, with the same generation, through a bind, a move and a delete', async () => {
      const a = await writer.create({ name: 'A' });
      const b = await writer.create({ name: 'B' });
      await writer.bind(a.id, ['p1', 'p2', 'p3']);
      const first = await agreed((repository) => repository.lookup(['p3', 'p1', 'none']));
      assert.deepEqual(boundNames(first), { p3: `${a.id}:A`, p1: `${a.id}:A` });

      await writer.bind(b.id, ['p2']);
      const moved = await agreed((repository) => repository.lookup(['p1', 'p2']));
      assert.deepEqual(boundNames(moved), { p1: `${a.id}:A`, p2: `${b.id}:B` });
      assert.ok(moved.generation > first.generation, 'a binding moves the generation');

      await writer.delete(a.id);
      const deleted = await agreed((repository) => repository.lookup(['p1', 'p2', 'p3']));
      assert.deepEqual(boundNames(deleted), { p2: `${b.id}:B` });
    });

    void it('tells the same changes since a generation', async () => {
      const { generation: start } = await writer.lookup([]);
      const c = await writer.create({ name: 'C' });
      await writer.bind(c.id, ['q1', 'q2']);
      await writer.update(c.id, { diffuse_g: 9 });
      const changes = await agreed((repository) => repository.changesSince(start));
      assert.ok(changes, 'the log still holds the last few changes');
      assert.deepEqual([...changes.groupIds].sort(), ['q1', 'q2']);
      assert.deepEqual([...changes.materialIds], [c.id]);
      const { generation: now } = await writer.lookup([]);
      assert.equal(changes.generation, now);
    });
  });
}
