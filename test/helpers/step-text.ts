// Edits of an IFC file's STEP text for making a next version of a model in a test: move an element by its
// placement, delete elements with every reference to them. One entity a line, as the fixtures are written.

/** The express id of the entity named `name` (an IfcRoot's third attribute). */
export function entityNamed(text: string, name: string): number {
  const pattern = new RegExp(
    `^#(\\d+)= ?IFC\\w+\\('[^']*',#\\d+,'${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}',`,
    'm',
  );
  const found = pattern.exec(text);
  if (!found) throw new Error(`no entity named ${name}`);
  return Number(found[1]);
}

/** The text of entity `id`'s line. */
function lineOf(text: string, id: number): string {
  const found = new RegExp(`^#${id}= ?(.*);\\r?$`, 'm').exec(text);
  if (!found) throw new Error(`no entity #${id}`);
  return found[1];
}

/** Express ids an entity's line refers to, in order. */
function referencesOf(line: string): number[] {
  return [...line.matchAll(/#(\d+)/g)].map((match) => Number(match[1]));
}

/**
 * Moves the product `id` by `delta` (in the file's length unit) through the location of its own IfcLocalPlacement:
 * the placement's IfcAxis2Placement3D's IfcCartesianPoint, which must be used by nothing else.
 */
export function moveByPlacement(text: string, id: number, delta: [number, number, number]): string {
  // IfcProduct: GlobalId, OwnerHistory (the first reference), Name, Description, ObjectType, ObjectPlacement, …
  const placement = referencesOf(lineOf(text, id))[1];
  if (!/^IFCLOCALPLACEMENT\(/.test(lineOf(text, placement))) throw new Error(`#${placement} is no placement`);
  const axes = referencesOf(lineOf(text, placement))[1];
  const point = referencesOf(lineOf(text, axes))[0];
  const uses = text.match(new RegExp(`#${point}(?!\\d)`, 'g'))!.length;
  if (uses !== 2) throw new Error(`the location #${point} is shared (${uses - 1} uses)`);
  const coordinates = /^IFCCARTESIANPOINT\(\(([^)]*)\)\)$/.exec(lineOf(text, point));
  if (!coordinates) throw new Error(`#${point} is no 3D point`);
  const moved = coordinates[1].split(',').map((value, axis) => formatReal(Number(value) + delta[axis]));
  return text.replace(
    new RegExp(`^#${point}= ?IFCCARTESIANPOINT\\(\\([^)]*\\)\\);`, 'm'),
    `#${point}= IFCCARTESIANPOINT((${moved.join(',')}));`,
  );
}

/** A STEP real: always with a decimal point. */
function formatReal(value: number): string {
  const text = String(Number(value.toFixed(10)));
  return text.includes('.') || text.includes('E') || text.includes('e') ? text : `${text}.`;
}

/**
 * Deletes the entities `ids` and what refers to them: an entity in a list loses that list item; an entity that
 * refers to a deleted one by a plain attribute, or whose list it emptied, is deleted too (a relation of a deleted
 * element), and so on until nothing refers to a deleted entity. Returns the text and every id deleted.
 */
export function deleteEntities(text: string, ids: readonly number[]): { text: string; deleted: Set<number> } {
  const deleted = new Set(ids);
  let lines = text.split('\n');
  for (let changed = true; changed;) {
    changed = false;
    const kept: string[] = [];
    for (const line of lines) {
      const own = /^#(\d+)=/.exec(line);
      if (!own) {
        kept.push(line);
        continue;
      }
      if (deleted.has(Number(own[1]))) continue;
      const edited = dropReferences(line, own[0].length, deleted);
      if (edited === null) {
        deleted.add(Number(own[1]));
        changed = true;
        continue;
      }
      kept.push(edited);
    }
    lines = kept;
  }
  return { text: lines.join('\n'), deleted };
}

/**
 * The line without list items that refer to `deleted`, or null when it refers to one by a plain attribute or a list
 * it refers to is left empty. Reads from `start` (after `#id=`), skipping quoted strings.
 */
function dropReferences(line: string, start: number, deleted: ReadonlySet<number>): string | null {
  let out = line.slice(0, start);
  let depth = 0;
  for (let i = start; i < line.length; i++) {
    const ch = line[i];
    if (ch === "'") {
      // A string runs to the next lone quote; '' inside it is a quote.
      let end = i + 1;
      while (end < line.length && !(line[end] === "'" && line[end + 1] !== "'"))
        end += line[end] === "'" ? 2 : 1;
      out += line.slice(i, end + 1);
      i = end;
      continue;
    }
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    const reference = ch === '#' ? /^#(\d+)/.exec(line.slice(i)) : null;
    if (!reference || !deleted.has(Number(reference[1]))) {
      out += ch;
      continue;
    }
    if (depth <= 1) return null;
    i += reference[0].length - 1;
    if (out.endsWith(',')) out = out.slice(0, -1);
    else if (line[i + 1] === ',') i++;
    else if (out.endsWith('(') && line[i + 1] === ')') return null;
  }
  return out;
}
