// SQLite's lower() and LIKE fold ASCII only, and PostgreSQL's lower() follows the database's locale (ASCII only
// under "C"): searches compare columns the app folded when it wrote them, the same on both databases.

/** Letters with a stroke or ligature that Unicode does not decompose, as their plain Latin letters. */
const PLAIN_LETTERS: Record<string, string> = {
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ħ: 'h',
  ŧ: 't',
  ı: 'i',
};

/**
 * Text as a case- and accent-insensitive search compares it: NFKC-normalized (a decomposed "é" is the composed
 * one, "ﬁ" is "fi"), fully case-folded, so "ÉCOLE" is "école" and "STRASSE", "Straße" and "STRAẞE" are all
 * "strasse", then without its accents: the combining diacritical marks (U+0300–U+036F) a letter decomposes into
 * are dropped and a few letters with a stroke (ø, ł, đ) or ligatures (æ, œ) are spelled plain, so "ecrou" finds
 * "écrou" and "Ørsted" is "orsted". Other scripts' marks (Indic vowel signs, Hebrew points) are kept: they are
 * letters there, not accents. Lower, upper, lower again gives Unicode's full folding for the cases that matter
 * here (ß and ẞ to "ss"); the final sigma is folded to σ so a word's end matches the same letters inside a longer
 * one.
 */
export function searchFold(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .toUpperCase()
    .toLowerCase()
    .replaceAll('ς', 'σ')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[æœøłđħŧı]/g, (letter) => PLAIN_LETTERS[letter]!)
    .normalize('NFKC');
}

/** A LIKE pattern finding `search` anywhere in a folded column; `\` escapes, so `%` and `_` are literal. */
export function foldedContains(search: string): string {
  return `%${searchFold(search).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
