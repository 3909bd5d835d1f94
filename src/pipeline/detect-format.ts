import { open } from 'node:fs/promises';
import path from 'node:path';
import { listArchive } from './archive/read-archive.ts';
import { MODEL_FORMATS } from './types.ts';
import type { ModelFormat } from './types.ts';

/** What {@link detectModelFormat} found: the model's format, and for a zip the entry that holds it. */
export interface DetectedFormat {
  format: ModelFormat;
  /** The upload is a zip; the model is `entry` inside it. */
  archive: boolean;
  /** Path of the model file inside the zip. */
  entry?: string;
}

/** Bytes read from the start of a file to judge it; enough for every header below. */
const HEAD_BYTES = 8192;

/** Order in which a zip's model file is chosen when it holds several. */
const ARCHIVE_PRIORITY: readonly ModelFormat[] = [
  'gltf',
  'glb',
  'ifc',
  'step',
  'stp',
  'iges',
  'igs',
  'fbx',
  'obj',
  'dae',
  '3ds',
  'ply',
  'stl',
];

/**
 * Judges a model file by its extension and its first bytes; a zip is judged by the model file its
 * central directory lists, without extracting it. Returns `undefined` for anything Vitrine cannot convert.
 * An empty file keeps the format its name gives, so its conversion fails with "The file is empty".
 */
export async function detectModelFormat(
  filePath: string,
  originalName: string,
): Promise<DetectedFormat | undefined> {
  const { head, size } = await readHead(filePath);
  if (isZip(head)) return detectInArchive(filePath);
  const extension = formatOfName(originalName);
  if (size === 0) return extension ? { format: extension, archive: false } : undefined;
  const format = extension ? confirm(extension, head, size) : sniff(head, size);
  return format ? { format, archive: false } : undefined;
}

/** The format a file name's extension stands for. */
export function formatOfName(name: string): ModelFormat | undefined {
  const extension = path.extname(name).slice(1).toLowerCase();
  return (MODEL_FORMATS as readonly string[]).includes(extension) ? (extension as ModelFormat) : undefined;
}

/** Picks the model file of a zip by {@link ARCHIVE_PRIORITY}, the shallowest first among equals. */
async function detectInArchive(zipPath: string): Promise<DetectedFormat | undefined> {
  let entries;
  try {
    entries = await listArchive(zipPath);
  } catch {
    return undefined;
  }
  let best: { format: ModelFormat; entry: string; rank: number; depth: number } | undefined;
  for (const { name, directory, symlink } of entries) {
    if (directory || symlink || name.startsWith('__MACOSX/')) continue;
    if (name.split('/').some((segment) => segment.startsWith('.'))) continue;
    const format = formatOfName(name);
    if (!format) continue;
    const rank = ARCHIVE_PRIORITY.indexOf(format);
    const depth = name.split('/').length;
    if (!best || rank < best.rank || (rank === best.rank && depth < best.depth)) {
      best = { format, entry: name, rank, depth };
    }
  }
  return best && { format: best.format, archive: true, entry: best.entry };
}

/** The extension's format when the bytes agree; STEP and IFC share a header, so the schema decides. */
function confirm(format: ModelFormat, head: Buffer, size: number): ModelFormat | undefined {
  switch (format) {
    case 'glb':
      return isGlb(head) ? format : undefined;
    case 'gltf':
      return isGltfJson(head, size) ? format : undefined;
    case 'stl':
      return isBinaryStl(head, size) || isAsciiStl(head) ? format : undefined;
    case 'ply':
      return isPly(head) ? format : undefined;
    case 'obj':
      return isObj(head, size) ? format : undefined;
    case 'fbx':
      return isFbx(head) ? format : undefined;
    case 'dae':
      return isCollada(head) ? format : undefined;
    case '3ds':
      return is3ds(head, size) ? format : undefined;
    case 'iges':
    case 'igs':
      return isIges(head) ? format : undefined;
    case 'step':
    case 'stp':
    case 'ifc':
      if (!isStepFile(head)) return undefined;
      return isIfcSchema(head) ? 'ifc' : format === 'ifc' ? undefined : format;
  }
}

/** Formats recognisable from their bytes alone, for files whose name gives no extension. */
function sniff(head: Buffer, size: number): ModelFormat | undefined {
  if (isGlb(head)) return 'glb';
  if (isFbx(head)) return 'fbx';
  if (isPly(head)) return 'ply';
  if (isCollada(head)) return 'dae';
  if (isStepFile(head)) return isIfcSchema(head) ? 'ifc' : 'step';
  if (isGltfJson(head, size)) return 'gltf';
  return undefined;
}

/** Reads at most {@link HEAD_BYTES} from the start of a file. */
async function readHead(filePath: string): Promise<{ head: Buffer; size: number }> {
  const handle = await open(filePath, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.min(HEAD_BYTES, size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { head: buffer.subarray(0, bytesRead), size };
  } finally {
    await handle.close();
  }
}

/** The head as text, without a UTF-8 byte-order mark or leading blanks. */
function text(head: Buffer): string {
  return head
    .toString('latin1')
    .replace(/^\xEF\xBB\xBF/, '')
    .trimStart();
}

function isZip(head: Buffer): boolean {
  return head.length >= 4 && head.readUInt32LE(0) === 0x04034b50;
}

function isGlb(head: Buffer): boolean {
  return head.length >= 12 && head.toString('latin1', 0, 4) === 'glTF';
}

/** A whole small file must parse with an `asset`; a large one must open like glTF JSON. */
function isGltfJson(head: Buffer, size: number): boolean {
  const start = text(head);
  if (!start.startsWith('{')) return false;
  if (size <= head.length) {
    try {
      const json = JSON.parse(start) as { asset?: unknown };
      return typeof json.asset === 'object' && json.asset !== null;
    } catch {
      return false;
    }
  }
  return /"(asset|accessors|buffers|bufferViews|meshes|nodes|scenes)"\s*:/.test(start);
}

/** Binary STL: an 80-byte header, a triangle count, then exactly 50 bytes per triangle. */
function isBinaryStl(head: Buffer, size: number): boolean {
  return head.length >= 84 && 84 + head.readUInt32LE(80) * 50 === size;
}

function isAsciiStl(head: Buffer): boolean {
  const start = text(head);
  return (
    /^solid\b/i.test(start) && (/\bfacet\b/i.test(start) || /\bendsolid\b/i.test(start)) && !head.includes(0)
  );
}

function isPly(head: Buffer): boolean {
  return /^ply\r?\n/.test(head.toString('latin1', 0, 5));
}

const OBJ_KEYWORDS = new Set([
  'v',
  'vt',
  'vn',
  'vp',
  'f',
  'l',
  'p',
  'o',
  'g',
  's',
  'mtllib',
  'usemtl',
  'cstype',
  'deg',
  'curv',
  'surf',
]);

/** OBJ: plain text whose statements (comments aside) all begin with OBJ keywords, with at least one vertex or face. */
function isObj(head: Buffer, size: number): boolean {
  if (head.includes(0)) return false;
  const lines = head.toString('latin1').split(/\r?\n/);
  if (size > head.length) lines.pop(); // the last line may be cut off mid-way
  let statements = 0;
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const keyword = trimmed.split(/\s+/, 1)[0];
    if (!OBJ_KEYWORDS.has(keyword)) return false;
    statements++;
  }
  return statements > 0 || size > head.length;
}

function isFbx(head: Buffer): boolean {
  return head.toString('latin1', 0, 18) === 'Kaydara FBX Binary' || /^; FBX/.test(text(head));
}

function isCollada(head: Buffer): boolean {
  return /<COLLADA[\s>]/.test(head.toString('latin1'));
}

/** 3DS: a main chunk 0x4D4D whose length fits the file. */
function is3ds(head: Buffer, size: number): boolean {
  if (head.length < 6 || head.readUInt16LE(0) !== 0x4d4d) return false;
  const length = head.readUInt32LE(2);
  return length >= 6 && length <= size;
}

/** IGES: 80-column records, the first in the Start (or Flag) section, a Global section following. */
function isIges(head: Buffer): boolean {
  const lines = head.toString('latin1').split(/\r?\n/);
  const first = lines[0] ?? '';
  if (first.length < 73 || !'SFC'.includes(first[72])) return false;
  return lines.some((line) => line.length >= 73 && line[72] === 'G');
}

function isStepFile(head: Buffer): boolean {
  return text(head).startsWith('ISO-10303-21');
}

function isIfcSchema(head: Buffer): boolean {
  return /FILE_SCHEMA\s*\(\s*\(\s*'IFC/i.test(head.toString('latin1'));
}
