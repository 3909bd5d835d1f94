// SQLite's lower() and LIKE fold ASCII only, and PostgreSQL's lower() follows the database's locale (ASCII only
// under "C"): searches compare columns the app folded when it wrote them, the same on both databases.

/**
 * Text as a case-insensitive search compares it: NFKC-normalized (a decomposed "é" is the composed one, "ﬁ" is
 * "fi"), then fully case-folded, so "ÉCOLE" is "école" and "STRASSE", "Straße" and "STRAẞE" are all "strasse".
 * Lower, upper, lower again gives Unicode's full folding for the cases that matter here (ß and ẞ to "ss"); the
 * final sigma is folded to σ so a word's end matches the same letters inside a longer one.
 */
export function searchFold(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .toUpperCase()
    .toLowerCase()
    .replaceAll('ς', 'σ')
    .normalize('NFKC');
}

/** A LIKE pattern finding `search` anywhere in a folded column; `\` escapes, so `%` and `_` are literal. */
export function foldedContains(search: string): string {
  return `%${searchFold(search).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
