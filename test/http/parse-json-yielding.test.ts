import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../src/http/api-error.ts';
import {
  parseJsonYielding,
  tooDeepMessage,
  YIELDING_PARSE_DEFAULTS,
} from '../../src/http/parse-json-yielding.ts';

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const PIECES = [
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '"',
  '\\',
  'u',
  '0',
  '1',
  '-',
  '.',
  'e',
  't',
  'n',
  ' ',
  '\n',
  '\u0000',
  'é',
  '\ud83d',
];

function randomValue(next: () => number, depth: number): unknown {
  const pick = next();
  if (depth > 3 || pick < 0.3) {
    const scalars = [0, -1.5e3, 12, true, false, null, '', 'a"b', 'tab\there', 'é✓😀', '\u0000', '\\u0000'];
    return scalars[Math.floor(next() * scalars.length)];
  }
  if (pick < 0.65) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  const object: Record<string, unknown> = {};
  for (let index = 0; index < Math.floor(next() * 4); index++)
    object[`k${Math.floor(next() * 3)}`] = randomValue(next, depth + 1);
  return object;
}

/** Texts that are JSON, nearly JSON, or nothing like it. */
function corpus(): string[] {
  const next = random(18);
  const texts = [
    '{}',
    '[]',
    '0',
    '-0',
    '1e400',
    '"x"',
    ' \n{"a" : [ 1 , 2 ] }\t',
    '\ufeff{"a":1}',
    '{"a":1,"a":2}',
    '01',
    '1.',
    '.5',
    '-',
    '+1',
    '[1,]',
    '{"a":1,}',
    '{,}',
    '[,1]',
    '{"a"}',
    '{"a":}',
    '{a:1}',
    "{'a':1}",
    'tru',
    'nul',
    'truex',
    'NaN',
    'Infinity',
    '[1 2]',
    '{"a":1 "b":2}',
    '"\\x"',
    '"\\u12"',
    '"a\nb"',
    '"\u0000"',
    '"abc',
    '[[[',
    ']]]',
    '{"a":[}',
    '[{]',
    '1 2',
    '[]]',
    '{}}',
    '"\\\\"',
    '"\\\\\\"',
    '"\\"',
    '',
  ];
  for (let index = 0; index < 400; index++) {
    const valid = JSON.stringify(randomValue(next, 0));
    texts.push(valid);
    // The same text cut, with a character replaced, and with one inserted.
    const at = Math.floor(next() * (valid.length + 1));
    const piece = PIECES[Math.floor(next() * PIECES.length)]!;
    texts.push(
      valid.slice(0, at),
      valid.slice(0, at) + piece + valid.slice(at + 1),
      valid.slice(0, at) + piece + valid.slice(at),
    );
  }
  return texts;
}

async function outcome(parse: () => unknown): Promise<{ value?: unknown; failed?: boolean }> {
  try {
    return { value: await parse() };
  } catch (error) {
    assert.ok(error instanceof SyntaxError || error instanceof ApiError, `unexpected ${String(error)}`);
    return { failed: true };
  }
}

void describe('parseJsonYielding', () => {
  void it('agrees with JSON.parse on 1,600 valid, cut and mangled texts', async () => {
    for (const text of corpus()) {
      const expected = await outcome(() => JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
      const actual = await outcome(() => parseJsonYielding(text));
      assert.deepEqual(actual, expected, JSON.stringify(text));
    }
  });

  void it('refuses prototype poisoning as Fastify does', async () => {
    for (const text of [
      '{"__proto__":{"x":1}}',
      '{"a":[{"__proto__":1}]}',
      '{"constructor":{"prototype":{}}}',
    ]) {
      await assert.rejects(parseJsonYielding(text), SyntaxError, text);
    }
    assert.deepEqual(await parseJsonYielding('{"constructor":{"name":"x"}}'), { constructor: { name: 'x' } });
  });

  void it('refuses nesting deeper than the limit at once, whatever follows', async () => {
    const limit = YIELDING_PARSE_DEFAULTS.maxDepth;
    const ok = '['.repeat(limit) + ']'.repeat(limit);
    assert.equal(JSON.stringify(await parseJsonYielding(ok)), ok);
    const started = performance.now();
    await assert.rejects(
      parseJsonYielding('{"group_ids":' + '['.repeat(16_000_000)),
      (error: unknown) => error instanceof ApiError && error.message === tooDeepMessage(limit),
    );
    assert.ok(performance.now() - started < 1_000, 'refused without reading the rest');
  });

  void it('refuses objects of too many members and arrays of too many items', async () => {
    const members = '{' + Array.from({ length: 1_001 }, (_, index) => `"k${index}":1`).join(',') + '}';
    await assert.rejects(parseJsonYielding(members), /more than 1000 members/);
    await assert.rejects(
      parseJsonYielding('[1,2,3]', { ...YIELDING_PARSE_DEFAULTS, maxItems: 2 }),
      /array of more than 2 items/,
    );
  });

  void it('returns to the event loop while it parses a 20 MB body of 100,000 ids', async () => {
    const body = JSON.stringify({
      group_ids: Array.from({ length: 100_000 }, (_, index) => `model:${index}`.padEnd(200, 'x')),
    });
    let turns = 0;
    const counter = setInterval(() => turns++, 0);
    const parsed = (await parseJsonYielding(body, { ...YIELDING_PARSE_DEFAULTS, sliceMs: 1 })) as {
      group_ids: string[];
    };
    clearInterval(counter);
    assert.equal(parsed.group_ids.length, 100_000);
    assert.equal(parsed.group_ids[99_999], 'model:99999'.padEnd(200, 'x'));
    assert.ok(turns >= 5, `the event loop turned ${turns} times during the parse`);
  });
});
