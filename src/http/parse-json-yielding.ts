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
  const cursor = new JsonCursor(text, options);
  let tokens = 0;
  let sliceStarted = performance.now();
  for (;;) {
    if (++tokens % TOKENS_PER_CHECK === 0 && performance.now() - sliceStarted > options.sliceMs) {
      await yieldToLoop();
      sliceStarted = performance.now();
    }
    if (!cursor.step()) break;
  }
  return cursor.finish();
}

/**
 * One body being parsed: where parsing is in the text, the containers still open and the root once placed.
 * Each {@link JsonCursor.step} reads one token, so the caller decides when to let the event loop run.
 */
class JsonCursor {
  private position: number;
  private readonly stack: Container[] = [];
  private root: unknown = undefined;
  private haveRoot = false;

  constructor(
    private readonly text: string,
    private readonly options: YieldingParseOptions,
  ) {
    // A leading byte order mark is skipped, as Fastify's own parser does.
    this.position = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  /** Reads the next token (a container's opening, or a value and what follows it); false at the end of the text. */
  step(): boolean {
    const text = this.text;
    this.skipWhitespace();
    if (this.position >= text.length) return false;
    if (this.haveRoot && this.stack.length === 0) this.fail();
    const char = text[this.position]!;
    if (char === '{') {
      this.position++;
      const object: Container = { kind: 'object', value: {}, members: 0 };
      this.open(object);
      this.skipWhitespace();
      if (text[this.position] === '}') {
        this.position++;
        this.close();
        this.afterValue();
      } else {
        this.readKey(object as ObjectContainer);
      }
      return true;
    }
    if (char === '[') {
      this.position++;
      this.open({ kind: 'array', value: [] });
      this.skipWhitespace();
      if (text[this.position] === ']') {
        this.position++;
        this.close();
        this.afterValue();
      }
      return true;
    }
    this.place(char === '"' ? this.readString() : this.readLiteral());
    this.afterValue();
    return true;
  }

  /** The parsed value, once every token is read; refuses empty text and unclosed containers. */
  finish(): unknown {
    if (!this.haveRoot || this.stack.length > 0) this.fail();
    return this.root;
  }

  private fail(): never {
    throw new InvalidJson(`Unexpected token in JSON at position ${this.position}`);
  }

  private skipWhitespace(): void {
    WHITESPACE.lastIndex = this.position;
    WHITESPACE.test(this.text);
    this.position = WHITESPACE.lastIndex;
  }

  private readString(): string {
    const text = this.text;
    let end = text.indexOf('"', this.position + 1);
    // A quote preceded by an odd number of backslashes is escaped and does not end the string.
    while (end !== -1) {
      let backslashes = 0;
      while (text.charCodeAt(end - 1 - backslashes) === 92) backslashes++;
      if (backslashes % 2 === 0) break;
      end = text.indexOf('"', end + 1);
    }
    if (end === -1) this.fail();
    // The native parser decodes escapes and refuses raw control characters exactly as it would in a whole body.
    const token = text.slice(this.position, end + 1);
    this.position = end + 1;
    try {
      return JSON.parse(token) as string;
    } catch {
      return this.fail();
    }
  }

  /** Reads `true`, `false`, `null` or a number. */
  private readLiteral(): unknown {
    const text = this.text;
    const position = this.position;
    if (text.startsWith('true', position)) {
      this.position += 4;
      return true;
    }
    if (text.startsWith('false', position)) {
      this.position += 5;
      return false;
    }
    if (text.startsWith('null', position)) {
      this.position += 4;
      return null;
    }
    NUMBER.lastIndex = position;
    const match = NUMBER.exec(text);
    if (!match) this.fail();
    this.position = NUMBER.lastIndex;
    return Number(match![0]);
  }

  private place(value: unknown): void {
    const parent = this.stack[this.stack.length - 1];
    if (!parent) {
      if (this.haveRoot) this.fail();
      this.root = value;
      this.haveRoot = true;
    } else if (parent.kind === 'array') {
      if (parent.value.length >= this.options.maxItems) {
        throw new ApiError(400, `request body has an array of more than ${this.options.maxItems} items`);
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
  }

  private open(container: Container): void {
    if (this.stack.length >= this.options.maxDepth)
      throw new ApiError(400, tooDeepMessage(this.options.maxDepth));
    this.stack.push(container);
  }

  /** Closes the innermost container and places it in its parent. */
  private close(): void {
    const done = this.stack.pop()!;
    this.place(done.value);
  }

  /** After a value inside a container: a comma (then the next member) or the closing bracket. */
  private afterValue(): boolean {
    const parent = this.stack[this.stack.length - 1];
    if (!parent) return false;
    this.skipWhitespace();
    const char = this.text[this.position];
    if (char === ',') {
      this.position++;
      this.skipWhitespace();
      if (parent.kind === 'object') this.readKey(parent);
      else if (this.text[this.position] === ']') this.fail();
      return true;
    }
    if ((char === ']' && parent.kind === 'array') || (char === '}' && parent.kind === 'object')) {
      this.position++;
      this.close();
      return this.afterValue();
    }
    return this.fail();
  }

  private readKey(object: ObjectContainer): void {
    if (this.text[this.position] !== '"') this.fail();
    const key = this.readString();
    if (key === '__proto__') throw new InvalidJson('Object contains forbidden prototype property');
    if (++object.members > this.options.maxMembers) {
      throw new ApiError(400, `request body has an object of more than ${this.options.maxMembers} members`);
    }
    this.skipWhitespace();
    if (this.text[this.position] !== ':') this.fail();
    this.position++;
    object.key = key;
  }
}
