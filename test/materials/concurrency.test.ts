import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testDialects } from '../helpers/databases.ts';
import { materialApi } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const GROUPS = Array.from({ length: 300 }, (_, i) => `group-${String(i).padStart(3, '0')}`);
const REQUESTS = 200;
const PER_REQUEST = 40;

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Picks `count` distinct groups from `GROUPS[from, to)`; small ranges make requests overlap heavily. */
function pickGroups(next: () => number, count: number, from: number, to: number): string[] {
  const picked = new Set<string>();
  while (picked.size < count) picked.add(GROUPS[from + Math.floor(next() * (to - from))]!);
  return [...picked];
}

for (const dialect of testDialects()) {
  void describe(`concurrent binding (${dialect})`, () => {
    let testApp: TestApp;
    before(async () => {
      // Correctness under contention, not timing: 200 requests queue for the pool's connections, which on a loaded
      // machine can take past the default 5 s wait and answer 503 (a refusal the outage tests cover).
      testApp = await createTestApp(dialect, { DATABASE_CONNECT_TIMEOUT_SECONDS: '60' });
    });
    after(() => testApp.close());

    void it('leaves exactly the expected bindings after 200 parallel binds and unbinds, never a 500', async () => {
      const api = materialApi(testApp.app, testApp.auth);
      const a = await api.create({ name: 'A' });
      const b = await api.create({ name: 'B' });
      await api.bind(b.id, GROUPS);

      // Binds move groups to A; unbinds remove only B's bindings. Whatever the interleaving, a group named by
      // any bind ends on A, a group named only by unbinds ends unbound, and the rest stay on B. Binds draw from
      // the first half, unbinds from the middle, so every outcome occurs and the middle is fought over.
      const next = random(2026);
      const work = Array.from({ length: REQUESTS }, (_, i) => ({
        kind: i % 2 === 0 ? ('bind' as const) : ('unbind' as const),
        groups: i % 2 === 0 ? pickGroups(next, PER_REQUEST, 0, 150) : pickGroups(next, PER_REQUEST, 100, 250),
      }));
      const toA = new Set(work.filter((w) => w.kind === 'bind').flatMap((w) => w.groups));
      const unbound = new Set(
        work.filter((w) => w.kind === 'unbind').flatMap((w) => w.groups.filter((g) => !toA.has(g))),
      );
      assert.ok(
        toA.size > 100 && unbound.size > 50 && toA.size + unbound.size < GROUPS.length,
        'every outcome is exercised',
      );

      const answers = await Promise.all(
        work.map(({ kind, groups }) =>
          kind === 'bind'
            ? api.call('POST', `/materials/${a.id}/bindings`, { group_ids: groups })
            : api.call('DELETE', `/materials/${b.id}/bindings`, { group_ids: groups }),
        ),
      );
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);

      // Each binding to B is removed once, so no group is reported by two unbinds.
      const reported = answers
        .filter((_, i) => work[i]!.kind === 'unbind')
        .flatMap((a) => a.json.data.unbound);
      assert.equal(new Set(reported).size, reported.length, 'no group reported twice');
      for (const group of unbound) assert.ok(reported.includes(group), `${group} reported as unbound`);

      const expectedA = GROUPS.filter((g) => toA.has(g));
      const expectedB = GROUPS.filter((g) => !toA.has(g) && !unbound.has(g));
      assert.deepEqual(await api.allGroups(a.id), expectedA);
      assert.deepEqual(await api.allGroups(b.id), expectedB);
      const lookup = await api.call('POST', '/groups/materials', { group_ids: GROUPS });
      const owners = new Map<string, number>(
        lookup.json.data.map((entry: { group_id: string; material: { id: number } }) => [
          entry.group_id,
          entry.material.id,
        ]),
      );
      for (const group of GROUPS) {
        const expected = toA.has(group) ? a.id : unbound.has(group) ? undefined : b.id;
        assert.equal(owners.get(group), expected, group);
      }
    });

    void it('keeps one material per group when many materials bind the same groups at once', async () => {
      const api = materialApi(testApp.app, testApp.auth);
      const materials = await Promise.all(
        Array.from({ length: 10 }, (_, i) => api.create({ name: `M${i}` })),
      );
      const shared = GROUPS.slice(0, 120);
      const next = random(7);
      const answers = await Promise.all(
        Array.from({ length: REQUESTS }, (_, i) => {
          const material = materials[i % materials.length]!;
          // Reversed and shuffled orders on purpose: locking must not depend on the order of the request.
          const groups = [...shared].sort(() => next() - 0.5);
          return api.call('POST', `/materials/${material.id}/bindings`, { group_ids: groups });
        }),
      );
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);
      const perMaterial = await Promise.all(materials.map((material) => api.allGroups(material.id)));
      const all = perMaterial.flat();
      assert.equal(all.length, shared.length, 'every group has exactly one material');
      assert.deepEqual([...all].sort(), [...shared].sort());
    });

    void it('binds of over a thousand new groups racing each other and smaller binds of some of them', async () => {
      // A bind of new groups may be written as plain rows (PostgreSQL): the binds that lose the race for the same
      // rows, and those naming groups bound meanwhile, must still end with one material per group.
      const api = materialApi(testApp.app, testApp.auth);
      const materials = await Promise.all(
        Array.from({ length: 4 }, (_, i) => api.create({ name: `Big ${i}` })),
      );
      const big = Array.from({ length: 1_500 }, (_, i) => `big-${String(i).padStart(4, '0')}`);
      const next = random(11);
      const requests = [
        ...materials.map((material) => ({ material, groups: [...big].sort(() => next() - 0.5) })),
        ...Array.from({ length: 8 }, (_, i) => ({
          material: materials[i % materials.length]!,
          groups: big.filter(() => next() < 0.02),
        })),
      ];
      const answers = await Promise.all(
        requests.map(({ material, groups }) =>
          api.call('POST', `/materials/${material.id}/bindings`, { group_ids: groups }),
        ),
      );
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);
      const all = (await Promise.all(materials.map((material) => api.allGroups(material.id)))).flat();
      assert.deepEqual([...all].sort(), big, 'every group has exactly one material');

      // Then a bind of 1,200 groups, 200 of them bound already and 1,000 new: all of them move to it.
      const target = await api.create({ name: 'Target' });
      const moved = [...big.slice(0, 200), ...Array.from({ length: 1_000 }, (_, i) => `more-${i}`)];
      await api.bind(target.id, moved);
      assert.deepEqual((await api.allGroups(target.id)).sort(), [...moved].sort());
      const lookup = await api.call('POST', '/groups/materials', { group_ids: big });
      const owners = lookup.json.data.map((entry: { material: { id: number } }) => entry.material.id);
      assert.deepEqual(
        owners.slice(0, 200),
        Array(200).fill(target.id),
        'the lookup shows the move of the groups bound before',
      );
      assert.ok(owners.slice(200).every((owner: number) => owner !== target.id));
    });
  });
}
