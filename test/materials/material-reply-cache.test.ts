import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMaterialReplyCache } from '../../src/materials/material-reply-cache.ts';

void describe('material reply cache', () => {
  void it('answers only at the generation a reply was kept at, and drops the oldest past its bound', () => {
    const cache = createMaterialReplyCache(2);
    const reply = (generation: number, body: string) => ({ generation, body, etag: `W/"${body}"` });
    cache.set(1, reply(5, 'one'));
    cache.set(2, reply(5, 'two'));
    assert.equal(cache.get(1, 5)?.body, 'one');
    assert.equal(cache.get(1, 6), undefined, 'the generation moved');
    cache.set(1, reply(6, 'one again'));
    cache.set(3, reply(6, 'three'));
    assert.equal(cache.get(2, 5), undefined, 'two was the oldest');
    assert.equal(cache.get(1, 6)?.body, 'one again');
    assert.equal(cache.get(3, 6)?.body, 'three');
  });
});
