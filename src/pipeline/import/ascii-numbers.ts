/** Whether text starts with a UTF-8 byte-order mark, as some Windows tools write before `solid` or `v`. */
export function hasByteOrderMark(bytes: Uint8Array): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/**
 * Reads whitespace-separated words and numbers straight from the bytes of a text format (ASCII STL and PLY),
 * with no conversion of the file to a string: a gigabyte file would otherwise need gigabytes of UTF-16.
 */
export class AsciiReader {
  /** Offset of the next unread byte. */
  offset: number;

  constructor(
    readonly bytes: Uint8Array,
    offset = 0,
    readonly end = bytes.length,
  ) {
    this.offset = offset;
  }

  /** Skips spaces, tabs and line ends; false at the end of the data. */
  skipSpace(): boolean {
    const bytes = this.bytes;
    let at = this.offset;
    while (at < this.end && bytes[at] <= 0x20) at++;
    this.offset = at;
    return at < this.end;
  }

  /** Skips past the end of the line: `\n`, `\r\n` or a lone `\r` (old Mac files). */
  skipLine(): void {
    const bytes = this.bytes;
    let at = this.offset;
    while (at < this.end && bytes[at] !== 0x0a && bytes[at] !== 0x0d) at++;
    this.offset = Math.min(this.end, at + 1);
  }

  /** The next word as text (keywords are short), or `undefined` at the end of the data. */
  word(): string | undefined {
    if (!this.skipSpace()) return undefined;
    const start = this.offset;
    const bytes = this.bytes;
    let at = start;
    while (at < this.end && bytes[at] > 0x20) at++;
    this.offset = at;
    let text = '';
    for (let i = start; i < at && i < start + 32; i++) text += String.fromCharCode(bytes[i]);
    return text;
  }

  /** Whether the next word equals `keyword` (ASCII, case-insensitive); consumes it when it does. */
  accept(keyword: string): boolean {
    if (!this.skipSpace()) return false;
    const bytes = this.bytes;
    const at = this.offset;
    if (at + keyword.length > this.end) return false;
    for (let i = 0; i < keyword.length; i++) {
      if ((bytes[at + i] | 0x20) !== keyword.charCodeAt(i)) return false;
    }
    const after = at + keyword.length;
    if (after < this.end && bytes[after] > 0x20) return false;
    this.offset = after;
    return true;
  }

  /** The next decimal number (sign, digits, fraction, exponent), or NaN (nothing consumed) when the next word is not one. */
  number(): number {
    if (!this.skipSpace()) return Number.NaN;
    const bytes = this.bytes;
    let at = this.offset;
    const end = this.end;
    let negative = false;
    if (bytes[at] === 0x2d || bytes[at] === 0x2b) {
      negative = bytes[at] === 0x2d;
      at++;
    }
    let mantissa = 0;
    let digits = 0;
    let scale = 0;
    let c = bytes[at];
    while (at < end && c >= 0x30 && c <= 0x39) {
      if (digits < 17) mantissa = mantissa * 10 + (c - 0x30);
      else scale++;
      digits++;
      c = bytes[++at];
    }
    if (at < end && c === 0x2e) {
      c = bytes[++at];
      while (at < end && c >= 0x30 && c <= 0x39) {
        if (digits < 17) {
          mantissa = mantissa * 10 + (c - 0x30);
          scale--;
        }
        digits++;
        c = bytes[++at];
      }
    }
    if (digits === 0) return Number.NaN;
    if (at < end && (c | 0x20) === 0x65) {
      let exponentAt = at + 1;
      let exponentNegative = false;
      if (bytes[exponentAt] === 0x2d || bytes[exponentAt] === 0x2b) {
        exponentNegative = bytes[exponentAt] === 0x2d;
        exponentAt++;
      }
      let exponent = 0;
      let exponentDigits = 0;
      while (exponentAt < end && bytes[exponentAt] >= 0x30 && bytes[exponentAt] <= 0x39) {
        exponent = Math.min(exponent * 10 + (bytes[exponentAt] - 0x30), 1000);
        exponentDigits++;
        exponentAt++;
      }
      if (exponentDigits > 0) {
        scale += exponentNegative ? -exponent : exponent;
        at = exponentAt;
      }
    }
    if (at < end && bytes[at] > 0x20) return Number.NaN;
    this.offset = at;
    const value = scale === 0 ? mantissa : scale > 0 ? mantissa * 10 ** scale : mantissa / 10 ** -scale;
    return negative ? -value : value;
  }
}
