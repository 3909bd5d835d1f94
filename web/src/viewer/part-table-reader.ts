/**
 * Reads a level's or a tile's table of parts (`EXT_structural_metadata`: a `group_id` and a `name` string a
 * feature) by feature id, each string decoded straight from the table's buffers by one decoder. The metadata
 * plugin's own reader builds typed arrays over the buffers and a TextDecoder for every value it reads: at 100,000
 * instanced parts that was half a second of the first frame. A table laid out other than the server writes it
 * (values without string offsets, arrays, a no-data value or default, or a plugin whose accessors hold other fields)
 * is read through the plugin as before.
 */

/** What a part's row holds. */
export interface PartRow {
  group_id?: unknown;
  name?: unknown;
}

/** The table of parts the structural-metadata plugin attaches to a loaded scene or mesh. */
export interface PartTable {
  getPropertyTableData(table: number, id: number): PartRow;
  /** The plugin's reader of each property table. */
  tableAccessors?: unknown[];
}

/** What this module reads of the plugin's reader of one property table. */
interface TableAccessor {
  count: number;
  /** The loaded buffer views, by index. */
  data: unknown[];
  definition: { properties?: Record<string, unknown> };
  properties: Record<string, ColumnProperty | undefined>;
}

/** What this module reads of a column's description. */
interface ColumnProperty {
  type: string;
  array: boolean;
  values: number | null;
  stringOffsets: number | null;
  stringOffsetType: string;
  noData: unknown;
  default: unknown;
}

/** A string column: the offset of each value's first byte (one more than the values) and its bytes. */
interface StringColumn {
  offsets: Uint8Array | Uint16Array | Uint32Array;
  bytes: Uint8Array;
  /** The whole column decoded at once when it is ASCII, where a byte offset is a character's. */
  ascii?: string;
}

const OFFSET_ARRAYS = { UINT8: Uint8Array, UINT16: Uint16Array, UINT32: Uint32Array } as const;

/** The readers made of each table, by its index: every instanced mesh or batched primitive of a level shares one. */
const readers = new WeakMap<PartTable, Map<number, (id: number) => PartRow>>();

/** A reader of table `tableIndex`'s rows by feature id: straight from its buffers when they are laid out as written. */
export function partRowReader(table: PartTable, tableIndex: number): (id: number) => PartRow {
  let byIndex = readers.get(table);
  if (!byIndex) readers.set(table, (byIndex = new Map()));
  let reader = byIndex.get(tableIndex);
  if (!reader) byIndex.set(tableIndex, (reader = newReader(table, tableIndex)));
  return reader;
}

function newReader(table: PartTable, tableIndex: number): (id: number) => PartRow {
  const viaPlugin = (id: number) => table.getPropertyTableData(tableIndex, id);
  const accessor = table.tableAccessors?.[tableIndex] as Partial<TableAccessor> | undefined;
  const groupIds = stringColumn(accessor, 'group_id');
  const names = stringColumn(accessor, 'name');
  const count = accessor?.count;
  if (!groupIds || !names || typeof count !== 'number') return viaPlugin;
  const decoder = new TextDecoder();
  const read = ({ bytes, offsets, ascii }: StringColumn, id: number) =>
    ascii !== undefined
      ? ascii.slice(offsets[id], offsets[id + 1])
      : decoder.decode(bytes.subarray(offsets[id], offsets[id + 1]));
  return (id) =>
    // Out of the table: the plugin says so as it always has.
    Number.isInteger(id) && id >= 0 && id < count
      ? { group_id: read(groupIds, id), name: read(names, id) }
      : viaPlugin(id);
}

/** Column `name` of a table as bytes and offsets, or null unless it is a plain string column of the table's own. */
function stringColumn(accessor: Partial<TableAccessor> | undefined, name: string): StringColumn | null {
  const property = accessor?.properties?.[name];
  const data = accessor?.data;
  if (!property || !data || !accessor.definition?.properties?.[name] || typeof accessor.count !== 'number')
    return null;
  const { type, array, values, stringOffsets, stringOffsetType, noData } = property;
  const Offsets = OFFSET_ARRAYS[stringOffsetType as keyof typeof OFFSET_ARRAYS];
  if (type !== 'STRING' || array || noData !== null || property.default !== null || !Offsets) return null;
  if (values === null || stringOffsets === null) return null;
  const bytes = data[values];
  const offsets = data[stringOffsets];
  if (!(bytes instanceof ArrayBuffer) || !(offsets instanceof ArrayBuffer)) return null;
  const column: StringColumn = { bytes: new Uint8Array(bytes), offsets: new Offsets(offsets) };
  if (column.offsets.length <= accessor.count) return null;
  // Group ids are ASCII, and most names: sliced from one string, a value costs no decoder call.
  if (isAscii(column.bytes)) column.ascii = new TextDecoder().decode(column.bytes);
  return column;
}

function isAscii(bytes: Uint8Array): boolean {
  for (let at = 0; at < bytes.length; at++) if (bytes[at]! >= 0x80) return false;
  return true;
}
