/** Conversions between the service's 0–255 channels and `<input type="color">` hex strings. */

/** `#rrggbb` of three 0–255 channels, rounded and clamped. */
export function toHex(r: number, g: number, b: number): string {
  return `#${[r, g, b]
    .map((value) =>
      Math.round(Math.min(Math.max(value, 0), 255))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** The three 0–255 channels of a `#rrggbb` string. */
export function fromHex(hex: string): [number, number, number] {
  const value = /^#?([0-9a-f]{6})$/i.exec(hex.trim())?.[1] ?? '000000';
  return [0, 2, 4].map((start) => parseInt(value.slice(start, start + 2), 16)) as [number, number, number];
}
