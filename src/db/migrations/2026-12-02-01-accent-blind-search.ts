import type { Kysely } from 'kysely';
import { backfillFolded, foldText, foldTextWithoutAccents } from './support/fold-backfill.ts';

// Searches become accent-insensitive as well as case-insensitive ("ecrou" finds "écrou"): every folded copy the
// app writes beside a searchable text is folded again without accents. Down folds them back as before.

const COLUMNS = [
  ['models', 'name', 'name_folded'],
  ['models', 'description', 'description_folded'],
  ['models', 'original_filename', 'original_filename_folded'],
  ['model_parts', 'name', 'name_folded'],
  ['model_part_properties', 'value', 'value_folded'],
  ['materials', 'name', 'name_folded'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, source, folded] of COLUMNS)
    await backfillFolded(db, table, source, folded, foldTextWithoutAccents);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, source, folded] of COLUMNS) await backfillFolded(db, table, source, folded, foldText);
}
