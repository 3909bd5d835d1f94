import { sql, type Kysely } from 'kysely';

// What the search-text migrations share: a frozen copy of the app's search fold (migrations never import app
// code) and the batched fill of a folded column from the text beside it.

/** The search fold as these migrations write it: NFKC, full case folding (ß to ss), final sigma as σ. */
export function foldText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .toUpperCase()
    .toLowerCase()
    .replaceAll('ς', 'σ')
    .normalize('NFKC');
}

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

/** The search fold since 2026-12-02: {@link foldText}, then without accents (combining marks U+0300–U+036F dropped, ø, ł, æ… spelled plain). */
export function foldTextWithoutAccents(text: string): string {
  return foldText(text)
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[æœøłđħŧı]/g, (letter) => PLAIN_LETTERS[letter]!)
    .normalize('NFKC');
}

/** Distinct texts folded a statement: three parameters each, well under both databases' limits. */
const BATCH = 1_000;

/**
 * Fills `target` with the fold (`foldText` unless given) of `source` in every row of `table`. The fold depends on the text alone, so one
 * `update … set target = case source when … end` a batch of distinct texts serves every row holding them: a
 * statement per thousand texts, not one per row. Texts are paged in order, each batch after the last one's end.
 */
export async function backfillFolded(
  db: Kysely<any>,
  table: string,
  source: string,
  target: string,
  fold: (text: string) => string = foldText,
): Promise<void> {
  let after: string | undefined;
  for (;;) {
    let page = db.selectFrom(table).select(source).distinct().orderBy(source).limit(BATCH);
    if (after !== undefined) page = page.where(source, '>', after);
    const texts = (await page.execute()).map((row: Record<string, string>) => row[source]!);
    if (texts.length === 0) return;
    const cases = sql.join(
      texts.map((text) => sql`when ${text} then ${fold(text)}`),
      sql` `,
    );
    await db
      .updateTable(table)
      .set({ [target]: sql`case ${sql.ref(source)} ${cases} end` })
      .where(source, 'in', texts)
      .execute();
    after = texts.at(-1);
  }
}
