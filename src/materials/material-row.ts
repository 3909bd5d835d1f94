import type { MaterialRow } from '../db/database.ts';
import { toIso } from '../db/timestamps.ts';
import type { Material } from './schemas.ts';

/** A material row as the API shows it. */
export function toMaterial(row: MaterialRow): Material {
  // The folded name is the search's, not part of a material; a row read by `select *` carries it.
  const { name_folded: _folded, ...material } = row;
  return {
    ...material,
    id: Number(row.id),
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}
