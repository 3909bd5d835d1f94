// A table of parts' strings (src/pipeline/tiles/part-features.ts `encodeStrings`): one buffer and its offsets, the
// same bytes as each string encoded on its own, whatever characters the strings hold.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeStrings } from '../../src/pipeline/tiles/part-features.ts';

/** Each string encoded on its own, end to end, and where each starts: what the table must hold. */
function oneByOne(values: string[]): { bytes: number[]; offsets: number[] } {
  const encoder = new TextEncoder();
  const bytes: number[] = [];
  const offsets: number[] = [];
  for (const value of values) {
    offsets.push(bytes.length);
    bytes.push(...encoder.encode(value));
  }
  offsets.push(bytes.length);
  return { bytes, offsets };
}

function check(values: string[]): void {
  const { bytes, offsets } = encodeStrings(values);
  const expected = oneByOne(values);
  assert.deepEqual([...bytes], expected.bytes);
  assert.deepEqual(
    [...new Uint32Array(offsets.buffer, offsets.byteOffset, values.length + 1)],
    expected.offsets,
  );
  const decoder = new TextDecoder();
  const view = new Uint32Array(offsets.buffer, offsets.byteOffset, values.length + 1);
  values.forEach((value, index) =>
    assert.equal(
      decoder.decode(bytes.subarray(view[index], view[index + 1])),
      decoder.decode(new TextEncoder().encode(value)),
    ),
  );
}

void test('ASCII, accented, CJK and astral strings, and empty ones, keep their own bytes', () => {
  check(['2O2Fr$t4X7Zf8NOew3FLOH', '', 'Wand – Außen', '壁', '🏗️ crane', 'part-99999']);
  check([]);
  check(Array.from({ length: 10_000 }, (_, i) => `p${i}`));
});

void test('lone surrogates are U+FFFD each, also where two strings would meet as one character', () => {
  check(['a\ud83d', '\ude00b']);
  check(['\ud83d', '\ude00']);
  check(['\udc00x', 'y\ud800']);
});
