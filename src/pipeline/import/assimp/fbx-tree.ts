import { deflateSync, inflateSync } from 'node:zlib';

/** One property of an FBX node: a typed value (binary files) or a token as written (ASCII files). */
export type FbxProperty =
  | { kind: 'scalar'; type: 'Y' | 'C' | 'I' | 'F' | 'D' | 'L'; value: number | bigint }
  | { kind: 'bytes'; type: 'S' | 'R'; bytes: Uint8Array }
  | { kind: 'array'; type: 'f' | 'd' | 'l' | 'i' | 'b'; count: number; encoding: number; raw: Uint8Array }
  | { kind: 'text'; text: string };

/** An FBX node: a name, its properties and its children. */
export interface FbxNode {
  name: string;
  properties: FbxProperty[];
  children: FbxNode[];
  /** Whether the node has a (possibly empty) block of children in the file. */
  block: boolean;
}

/** A parsed FBX file, written back in the encoding it came in. */
export interface FbxFile {
  binary: boolean;
  nodes: FbxNode[];
  /** Binary: the header before the first node and whatever follows the last one, kept as they were. */
  header: Uint8Array;
  footer: Uint8Array;
  version: number;
}

const MAGIC = 'Kaydara FBX Binary  \0';
const HEADER_LENGTH = 27;
const ELEMENT_SIZE = { f: 4, d: 8, l: 8, i: 4, b: 1 } as const;

/** Parses a binary or ASCII FBX file; throws on a malformed binary structure. */
export function parseFbx(bytes: Uint8Array): FbxFile {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, MAGIC.length));
  return head === MAGIC ? parseBinary(bytes) : parseAscii(new TextDecoder().decode(bytes));
}

/** Writes the file back in its own encoding. */
export function writeFbx(file: FbxFile): Uint8Array {
  if (file.binary) return writeBinary(file);
  return new TextEncoder().encode(new TextDecoder().decode(file.header) + writeAscii(file.nodes, ''));
}

/** The first child named `name`. */
export function child(node: FbxNode, name: string): FbxNode | undefined {
  return node.children.find((candidate) => candidate.name === name);
}

/** The node's first property as a string (`"ByPolygonVertex"` → `ByPolygonVertex`). */
export function stringValue(node: FbxNode | undefined): string | undefined {
  const property = node?.properties[0];
  if (!property) return undefined;
  if (property.kind === 'bytes') return new TextDecoder().decode(property.bytes);
  if (property.kind === 'text') return property.text.replace(/^"(.*)"$/s, '$1');
  return property.kind === 'scalar' ? String(property.value) : undefined;
}

/** The numbers of an array node (binary array, ASCII `*N { a: … }`, or a plain ASCII list). */
export function numbersOf(node: FbxNode): number[] | undefined {
  const first = node.properties[0];
  if (first?.kind === 'array') return Array.from(decodeArray(first), Number);
  if (first?.kind === 'text' && first.text.startsWith('*')) {
    const values = child(node, 'a');
    return values ? values.properties.map((property) => Number(textOf(property))) : [];
  }
  if (node.properties.length === 0 || node.properties.some((property) => property.kind !== 'text'))
    return undefined;
  const numbers = node.properties.map((property) => Number(textOf(property)));
  return numbers.every((value) => Number.isFinite(value)) ? numbers : undefined;
}

/** Replaces the numbers of an array node read by {@link numbersOf}, keeping its element type. */
export function setNumbers(node: FbxNode, values: number[]): void {
  const first = node.properties[0];
  if (first?.kind === 'array') {
    const raw = encodeArray(first.type, values);
    // Compressed as FBX writers do, so that a rewritten file stays the size of the original.
    node.properties[0] = { ...first, count: values.length, encoding: 1, raw: deflateSync(raw) };
  } else if (first?.kind === 'text' && first.text.startsWith('*')) {
    node.properties[0] = { kind: 'text', text: `*${values.length}` };
    const list = values.map((value): FbxProperty => ({ kind: 'text', text: String(value) }));
    const existing = child(node, 'a');
    if (existing) existing.properties = list;
    else node.children.push({ name: 'a', properties: list, children: [], block: false });
  } else {
    node.properties = values.map((value) => ({ kind: 'text', text: String(value) }));
  }
}

function textOf(property: FbxProperty): string {
  return property.kind === 'text' ? property.text : '';
}

function decodeArray(property: Extract<FbxProperty, { kind: 'array' }>): ArrayLike<number | bigint> {
  const raw = property.encoding === 1 ? inflateSync(property.raw) : property.raw;
  const bytes = new Uint8Array(raw).slice(0, property.count * ELEMENT_SIZE[property.type]);
  switch (property.type) {
    case 'f':
      return new Float32Array(bytes.buffer);
    case 'd':
      return new Float64Array(bytes.buffer);
    case 'l':
      return new BigInt64Array(bytes.buffer);
    case 'i':
      return new Int32Array(bytes.buffer);
    case 'b':
      return bytes;
  }
}

function encodeArray(type: keyof typeof ELEMENT_SIZE, values: number[]): Uint8Array {
  switch (type) {
    case 'f':
      return new Uint8Array(Float32Array.from(values).buffer);
    case 'd':
      return new Uint8Array(Float64Array.from(values).buffer);
    case 'l':
      return new Uint8Array(BigInt64Array.from(values, (value) => BigInt(value)).buffer);
    case 'i':
      return new Uint8Array(Int32Array.from(values).buffer);
    case 'b':
      return Uint8Array.from(values);
  }
}

// ---- binary ----

function parseBinary(bytes: Uint8Array): FbxFile {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(23, true);
  const wide = version >= 7500;
  const fail = (): never => {
    throw new Error('the FBX node structure is damaged');
  };
  let offset = HEADER_LENGTH;
  const readNode = (): FbxNode | undefined => {
    if (offset + (wide ? 25 : 13) > bytes.byteLength) fail();
    const end = wide ? Number(view.getBigUint64(offset, true)) : view.getUint32(offset, true);
    const count = wide ? Number(view.getBigUint64(offset + 8, true)) : view.getUint32(offset + 4, true);
    offset += wide ? 24 : 12;
    const nameLength = view.getUint8(offset);
    offset += 1;
    if (end === 0) {
      offset += nameLength;
      return undefined;
    }
    if (end > bytes.byteLength || end < offset) fail();
    const name = new TextDecoder('latin1').decode(bytes.subarray(offset, offset + nameLength));
    offset += nameLength;
    const properties: FbxProperty[] = [];
    for (let i = 0; i < count; i++) properties.push(readProperty());
    const children: FbxNode[] = [];
    const block = offset < end;
    while (offset < end) {
      const next = readNode();
      if (!next) break;
      children.push(next);
    }
    offset = end;
    return { name, properties, children, block };
  };
  const readProperty = (): FbxProperty => {
    if (offset >= bytes.byteLength) fail();
    const type = String.fromCharCode(bytes[offset]);
    offset += 1;
    const at = offset;
    switch (type) {
      case 'Y':
        offset += 2;
        return { kind: 'scalar', type, value: view.getInt16(at, true) };
      case 'C':
        offset += 1;
        return { kind: 'scalar', type, value: view.getUint8(at) };
      case 'I':
        offset += 4;
        return { kind: 'scalar', type, value: view.getInt32(at, true) };
      case 'F':
        offset += 4;
        return { kind: 'scalar', type, value: view.getFloat32(at, true) };
      case 'D':
        offset += 8;
        return { kind: 'scalar', type, value: view.getFloat64(at, true) };
      case 'L':
        offset += 8;
        return { kind: 'scalar', type, value: view.getBigInt64(at, true) };
      case 'S':
      case 'R': {
        const length = view.getUint32(at, true);
        offset += 4 + length;
        if (offset > bytes.byteLength) fail();
        return { kind: 'bytes', type, bytes: bytes.subarray(at + 4, at + 4 + length) };
      }
      case 'f':
      case 'd':
      case 'l':
      case 'i':
      case 'b': {
        const count = view.getUint32(at, true);
        const encoding = view.getUint32(at + 4, true);
        const length = view.getUint32(at + 8, true);
        offset += 12 + length;
        if (offset > bytes.byteLength) fail();
        return { kind: 'array', type, count, encoding, raw: bytes.subarray(at + 12, at + 12 + length) };
      }
      default:
        return fail();
    }
  };
  const nodes: FbxNode[] = [];
  while (offset < bytes.byteLength) {
    const node = readNode();
    if (!node) break;
    nodes.push(node);
  }
  return {
    binary: true,
    nodes,
    header: bytes.subarray(0, HEADER_LENGTH),
    footer: bytes.subarray(offset),
    version,
  };
}

function writeBinary(file: FbxFile): Uint8Array {
  const wide = file.version >= 7500;
  const chunks: Uint8Array[] = [file.header];
  let offset = file.header.byteLength;
  const push = (chunk: Uint8Array) => {
    chunks.push(chunk);
    offset += chunk.byteLength;
  };
  const nullRecord = () => push(new Uint8Array(wide ? 25 : 13));
  const writeNode = (node: FbxNode) => {
    const headerSize = (wide ? 24 : 12) + 1;
    const name = new TextEncoder().encode(node.name);
    const header = new Uint8Array(headerSize + name.byteLength);
    const view = new DataView(header.buffer);
    push(header);
    const propertiesStart = offset;
    for (const property of node.properties) push(encodeProperty(property));
    const propertiesLength = offset - propertiesStart;
    if (node.block || node.children.length > 0) {
      for (const next of node.children) writeNode(next);
      nullRecord();
    }
    if (wide) {
      view.setBigUint64(0, BigInt(offset), true);
      view.setBigUint64(8, BigInt(node.properties.length), true);
      view.setBigUint64(16, BigInt(propertiesLength), true);
    } else {
      view.setUint32(0, offset, true);
      view.setUint32(4, node.properties.length, true);
      view.setUint32(8, propertiesLength, true);
    }
    header[headerSize - 1] = name.byteLength;
    header.set(name, headerSize);
  };
  for (const node of file.nodes) writeNode(node);
  nullRecord();
  push(file.footer);
  const result = new Uint8Array(offset);
  let at = 0;
  for (const chunk of chunks) {
    result.set(chunk, at);
    at += chunk.byteLength;
  }
  return result;
}

function encodeProperty(property: FbxProperty): Uint8Array {
  const code = property.kind === 'text' ? 'S' : property.type;
  if (property.kind === 'scalar') {
    const size = { Y: 2, C: 1, I: 4, F: 4, D: 8, L: 8 }[property.type];
    const out = new Uint8Array(1 + size);
    const view = new DataView(out.buffer);
    out[0] = code.charCodeAt(0);
    const value = property.value;
    if (property.type === 'Y') view.setInt16(1, Number(value), true);
    else if (property.type === 'C') view.setUint8(1, Number(value));
    else if (property.type === 'I') view.setInt32(1, Number(value), true);
    else if (property.type === 'F') view.setFloat32(1, Number(value), true);
    else if (property.type === 'D') view.setFloat64(1, Number(value), true);
    else view.setBigInt64(1, BigInt(value), true);
    return out;
  }
  if (property.kind === 'array') {
    const out = new Uint8Array(13 + property.raw.byteLength);
    const view = new DataView(out.buffer);
    out[0] = code.charCodeAt(0);
    view.setUint32(1, property.count, true);
    view.setUint32(5, property.encoding, true);
    view.setUint32(9, property.raw.byteLength, true);
    out.set(property.raw, 13);
    return out;
  }
  const bytes = property.kind === 'bytes' ? property.bytes : new TextEncoder().encode(property.text);
  const out = new Uint8Array(5 + bytes.byteLength);
  out[0] = code.charCodeAt(0);
  new DataView(out.buffer).setUint32(1, bytes.byteLength, true);
  out.set(bytes, 5);
  return out;
}

// ---- ASCII ----

type Token = { type: 'word' | 'string' | 'punct'; text: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /;[^\n]*|"[^"]*"|[{}:,]|[^\s{}:,;"]+|\s+/g;
  for (const match of text.matchAll(pattern)) {
    const value = match[0];
    if (value[0] === ';' || /^\s/.test(value)) continue;
    if (value[0] === '"') tokens.push({ type: 'string', text: value });
    else if (value.length === 1 && '{}:,'.includes(value)) tokens.push({ type: 'punct', text: value });
    else tokens.push({ type: 'word', text: value });
  }
  return tokens;
}

function parseAscii(text: string): FbxFile {
  const tokens = tokenize(text);
  let at = 0;
  const isKey = (index: number) =>
    tokens[index]?.type === 'word' && tokens[index + 1]?.type === 'punct' && tokens[index + 1].text === ':';
  const parseList = (closing: boolean): FbxNode[] => {
    const nodes: FbxNode[] = [];
    while (at < tokens.length) {
      if (tokens[at].text === '}' && tokens[at].type === 'punct') {
        if (closing) at++;
        return nodes;
      }
      if (!isKey(at)) {
        at++;
        continue;
      }
      const name = tokens[at].text;
      at += 2;
      const properties: FbxProperty[] = [];
      while (at < tokens.length && !isKey(at) && tokens[at].type !== 'punct') {
        properties.push({ kind: 'text', text: tokens[at].text });
        at++;
        if (tokens[at]?.text === ',' && tokens[at].type === 'punct') at++;
        else break;
      }
      let children: FbxNode[] = [];
      const block = tokens[at]?.text === '{' && tokens[at].type === 'punct';
      if (block) {
        at++;
        children = parseList(true);
      }
      nodes.push({ name, properties, children, block });
    }
    return nodes;
  };
  // The first comment line names the version; it is kept as the written file's first line.
  const first = /^;[^\n]*\n/.exec(text)?.[0] ?? '; FBX 7.4.0 project file\n';
  const header = new TextEncoder().encode(first);
  return { binary: false, nodes: parseList(false), header, footer: new Uint8Array(0), version: 0 };
}

function writeAscii(nodes: FbxNode[], indent: string): string {
  let out = '';
  for (const node of nodes) {
    const properties = node.properties
      .map((property) => (property.kind === 'text' ? property.text : ''))
      .join(',');
    out += `${indent}${node.name}: ${properties}`;
    out +=
      node.block || node.children.length > 0
        ? ` {\n${writeAscii(node.children, `${indent}\t`)}${indent}}\n`
        : '\n';
  }
  return out;
}
