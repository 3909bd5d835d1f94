import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { ApiError } from './api-error.ts';

/** Limits of {@link parseJsonYielding}. */
export interface YieldingParseOptions {
  /** Deepest nesting of arrays and objects accepted; deeper bodies are refused before anything is built. */
  maxDepth: number;
  /** Most members of one object; no route takes more than a dozen, and each costs far more than an item. */
  maxMembers: number;
  /** Most items of one array (ten times the largest list a route accepts, so the route still names its limit). */
  maxItems: number;
  /** Longest stretch of parsing between two turns of the event loop, in milliseconds. */
  sliceMs: number;
}

/** Defaults of {@link YieldingParseOptions}: every route's body is 3 levels deep at most. */
export const YIELDING_PARSE_DEFAULTS: YieldingParseOptions = {
  maxDepth: 64,
  maxMembers: 1_000,
  maxItems: 1_000_000,
  sliceMs: 10,
};

/** The message of a body nested deeper than the limit. */
export function tooDeepMessage(maxDepth: number): string {
  return `request body is nested deeper than ${maxDepth} levels`;
}

/** Raised for text that is not JSON; classified as 400 `request body is not valid JSON`. */
class InvalidJson extends SyntaxError {
  readonly statusCode = 400;
}

type ObjectContainer = { kind: 'object'; value: Record<string, unknown>; key?: string; members: number };
type Container = { kind: 'array'; value: unknown[] } | ObjectContainer;

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
/** Tokens between two looks at the clock: a clock read per token would cost more than the parsing. */
const TOKENS_PER_CHECK = 2048;

/**
 * Parses JSON text as `JSON.parse` does, but a little at a time: it returns to the event loop every `sliceMs`,
 * so a 32 MiB body holds other clients up for milliseconds, not for the whole parse, and it refuses nesting
 * deeper than `maxDepth` as soon as it gets there (`JSON.parse` takes seconds on a few million brackets).
 * Like Fastify's own parser it refuses a `__proto__` key and a `constructor` object holding `prototype`.
 */
export async function parseJsonYielding(
  text: string,
  options: YieldingParseOptions = YIELDING_PARSE_DEFAULTS,
): Promise<unknown> {
  const stack: Container[] = [];
  // A leading byte order mark is skipped, as Fastify's own parser does.
  let position = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let root: unknown;
  let haveRoot = false;
  let tokens = 0;
  let sliceStarted = performance.now();

  const fail = (): never => {
    throw new InvalidJson(`Unexpected token in JSON at position ${position}`);
  };
  const skipWhitespace = () => {
    WHITESPACE.lastIndex = position;
    WHITESPACE.test(text);
    position = WHITESPACE.lastIndex;
  };
  const readString = (): string => {
    let end = text.indexOf('"', position + 1);
    // A quote preceded by an odd number of backslashes is escaped and does not end the string.
    while (end !== -1) {
      let backslashes = 0;
      while (text.charCodeAt(end - 1 - backslashes) === 92) backslashes++;
      if (backslashes % 2 === 0) break;
      end = text.indexOf('"', end + 1);
    }
    if (end === -1) fail();
    // The native parser decodes escapes and refuses raw control characters exactly as it would in a whole body.
    const token = text.slice(position, end + 1);
    position = end + 1;
    try {
      return JSON.parse(token) as string;
    } catch {
      return fail();
    }
  };
  const place = (value: unknown) => {
    const parent = stack[stack.length - 1];
    if (!parent) {
      if (haveRoot) fail();
      root = value;
      haveRoot = true;
    } else if (parent.kind === 'array') {
      if (parent.value.length >= options.maxItems) {
        throw new ApiError(400, `request body has an array of more than ${options.maxItems} items`);
      }
      parent.value.push(value);
    } else {
      const key = parent.key!;
      if (key === 'constructor' && value !== null && typeof value === 'object' && 'prototype' in value) {
        throw new InvalidJson('Object contains forbidden prototype property');
      }
      parent.value[key] = value;
      parent.key = undefined;
    }
  };
  const open = (container: Container) => {
    if (stack.length >= options.maxDepth) throw new ApiError(400, tooDeepMessage(options.maxDepth));
    stack.push(container);
  };
  /** Closes the innermost container and places it in its parent. */
  const close = () => {
    const done = stack.pop()!;
    place(done.value);
  };
  /** After a value inside a container: a comma (then the next member) or the closing bracket. */
  const afterValue = (): boolean => {
    const parent = stack[stack.length - 1];
    if (!parent) return false;
    skipWhitespace();
    const char = text[position];
    if (char === ',') {
      position++;
      skipWhitespace();
      if (parent.kind === 'object') readKey(parent);
      else if (text[position] === ']') fail();
      return true;
    }
    if ((char === ']' && parent.kind === 'array') || (char === '}' && parent.kind === 'object')) {
      position++;
      close();
      return afterValue();
    }
    return fail();
  };
  const readKey = (object: ObjectContainer) => {
    if (text[position] !== '"') fail();
    const key = readString();
    if (key === '__proto__') throw new InvalidJson('Object contains forbidden prototype property');
    if (++object.members > options.maxMembers) {
      throw new ApiError(400, `request body has an object of more than ${options.maxMembers} members`);
    }
    skipWhitespace();
    if (text[position] !== ':') fail();
    position++;
    object.key = key;
  };

  for (;;) {
    if (++tokens % TOKENS_PER_CHECK === 0 && performance.now() - sliceStarted > options.sliceMs) {
      await yieldToLoop();
      sliceStarted = performance.now();
    }
    skipWhitespace();
    if (position >= text.length) break;
    if (haveRoot && stack.length === 0) fail();
    const char = text[position]!;
    if (char === '{') {
      position++;
      const object: Container = { kind: 'object', value: {}, members: 0 };
      open(object);
      skipWhitespace();
      if (text[position] === '}') {
        position++;
        close();
        afterValue();
      } else {
        readKey(object as ObjectContainer);
      }
      continue;
    }
    if (char === '[') {
      position++;
      open({ kind: 'array', value: [] });
      skipWhitespace();
      if (text[position] === ']') {
        position++;
        close();
        afterValue();
      }
      continue;
    }
    let value: unknown;
    if (char === '"') {
      value = readString();
    } else if (text.startsWith('true', position)) {
      value = true;
      position += 4;
    } else if (text.startsWith('false', position)) {
      value = false;
      position += 5;
    } else if (text.startsWith('null', position)) {
      value = null;
      position += 4;
    } else {
      NUMBER.lastIndex = position;
      const match = NUMBER.exec(text);
      if (!match) fail();
      value = Number(match![0]);
      position = NUMBER.lastIndex;
    }
    place(value);
    afterValue();
  }
  if (!haveRoot || stack.length > 0) fail();
  return root;
}
