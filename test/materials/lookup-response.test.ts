import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MATERIAL } from '../../src/materials/default-material.ts';
import { MATERIAL_DEFAULTS } from '../../src/materials/material-defaults.ts';
import {
  buildLookupResponse,
  lookupResponseChunks,
  patchLookupResponse,
  type LookupResponse,
  type ShownMaterial,
} from '../../src/materials/lookup-response.ts';
import type { Material } from '../../src/materials/schemas.ts';

function material(id: number, name: string): Material {
  // Fields that differ from one material to the next, so that their entries differ in length too.
  return {
    ...MATERIAL_DEFAULTS,
    id,
    name,
    diffuse_r: id % 256,
    shininess: 0.25 * id,
    created_at: '2026-11-26T00:00:00.000Z',
    updated_at: '2026-11-26T00:00:00.000Z',
  };
}

const bytesOf = (response: LookupResponse) => Buffer.concat(lookupResponseChunks(response));

/** A small deterministic generator, so a failure names the seed that found it. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

void describe('lookup response', () => {
  void it('writes the JSON the schema describes, in request order, with and without the default', () => {
    const steel = material(1, 'Steel "brushed"');
    const groups = ['a', 'b\u00e9', 'c'];
    const bound = new Map([['b\u00e9', steel]]);
    const withDefault = buildLookupResponse(groups, bound, DEFAULT_MATERIAL);
    assert.deepEqual(JSON.parse(bytesOf(withDefault).toString()), {
      code: 0,
      message: 'success',
      data: [
        { group_id: 'a', material: { ...DEFAULT_MATERIAL } },
        { group_id: 'b\u00e9', material: steel },
        { group_id: 'c', material: { ...DEFAULT_MATERIAL } },
      ],
    });
    assert.equal(bytesOf(withDefault).length, withDefault.size);
    const withoutDefault = buildLookupResponse(groups, bound, undefined);
    assert.deepEqual(JSON.parse(bytesOf(withoutDefault).toString()).data, [
      { group_id: 'b\u00e9', material: steel },
    ]);
    const empty = buildLookupResponse(groups, new Map(), undefined);
    assert.equal(bytesOf(empty).toString(), '{"code":0,"message":"success","data":[]}');
  });

  void it('patched answers are byte for byte, and tag for tag, the answers written anew', () => {
    const materials = [material(1, 'one'), material(2, 'two'), material(3, 'three')];
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      // Pieces are bounded by twice the entries: some answers are large enough to be joined up again.
      const count = seed % 5 === 0 ? 300 : 1 + Math.floor(next() * 60);
      const groups = Array.from({ length: count }, (_, i) => `model-${seed}:${i}`);
      const fallback = seed % 2 === 0 ? DEFAULT_MATERIAL : undefined;
      const bound = new Map<string, Material>();
      for (const group of groups) {
        if (next() < 0.6) bound.set(group, materials[Math.floor(next() * materials.length)]!);
      }
      let response = buildLookupResponse(groups, bound, fallback);
      // Enough rounds to pass the point where the pieces are joined into one buffer again.
      for (let round = 0; round < 300; round++) {
        const updates = new Map<number, ShownMaterial | undefined>();
        const changes = round % 50 === 0 ? count : 1 + Math.floor(next() * 3);
        for (let c = 0; c < changes; c++) {
          const index = round % 7 === 0 && c === 0 ? 0 : Math.floor(next() * count);
          const pick = Math.floor(next() * (materials.length + 1));
          const group = groups[index]!;
          if (pick === materials.length) bound.delete(group);
          else bound.set(group, materials[pick]!);
          updates.set(index, bound.get(group) ?? fallback);
        }
        response = patchLookupResponse(response, updates);
        const fresh = buildLookupResponse(groups, bound, fallback);
        const label = `seed ${seed}, round ${round}`;
        assert.equal(bytesOf(response).toString(), bytesOf(fresh).toString(), label);
        assert.equal(response.size, fresh.size, label);
        assert.equal(response.etag, fresh.etag, label);
        assert.ok(response.pieces.length <= 257, label);
      }
    }
  });

  void it("changes the tag when a shown material's fields change, and only then", () => {
    const groups = ['a', 'b'];
    const before = buildLookupResponse(groups, new Map([['a', material(1, 'one')]]), undefined);
    const renamed = patchLookupResponse(before, new Map([[0, material(1, 'uno')]]));
    assert.notEqual(renamed.etag, before.etag);
    assert.equal(JSON.parse(bytesOf(renamed).toString()).data[0].material.name, 'uno');
    const same = patchLookupResponse(before, new Map([[0, material(1, 'one')]]));
    assert.equal(same.etag, before.etag);
  });
});
