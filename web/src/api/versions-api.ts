/**
 * Client of a model's versions (`/api/models/:id/versions`, catalog envelope): list and read them, send a new
 * one, convert a failed one again, make an older one current again, delete one, and compare two part by part.
 */
import { request } from './http.ts';
import { postForm, type UploadFields, type UploadProgress } from './upload-model.ts';
import type { PartDiff } from '../../../src/part-diff/diff-parts.ts';
import type { Lod, ModelStatus } from './types.ts';

/** How many parts a diff found in each state. */
export type DiffCounts = PartDiff['counts'];

/** One level of detail of a completed version, as the model's own levels are listed. */
export interface VersionLod {
  level: number;
  url: string;
  triangle_count: number;
  size: number;
  /** Largest geometric error against LOD 0 (share of the diagonal); null when not measured. */
  error?: number | null;
  /** False for a level stored as a copy of the one before; null when not recorded. */
  reduced?: boolean | null;
}

/** One version of a model: its file, its conversion and its outputs. */
export interface ModelVersion {
  number: number;
  original_filename: string;
  format: string;
  file_size: number;
  status: ModelStatus;
  progress: number;
  error: string | null;
  triangle_count: number | null;
  vertex_count: number | null;
  part_count: number | null;
  /** True for the version the model serves everywhere. */
  current: boolean;
  /** The version this one was compared with when it completed (the current one when it was sent). */
  based_on: number | null;
  /** Its diff against `based_on`, once completed. */
  diff_counts: DiffCounts | null;
  /** Name of the token that sent it. */
  author: string | null;
  created_at: string;
  /** Its levels; empty until it completes. */
  lods: VersionLod[];
  thumbnail_url: string | null;
}

export type { ChangedPart, PartChange, PartRef } from '../../../src/part-diff/diff-parts.ts';

/** The part-level diff of version `from` to version `to`, as the server's diff makes it. */
export type VersionDiff = PartDiff & { from: number; to: number };

const versionsPath = (modelId: string): string => `/api/models/${encodeURIComponent(modelId)}/versions`;

/** Reads the `data` of a catalog envelope. */
async function data<T>(path: string, options: Parameters<typeof request>[1] = {}): Promise<T> {
  return ((await request(path, options)) as { data: T }).data;
}

/** The model's versions, newest first. */
export function listVersions(modelId: string): Promise<ModelVersion[]> {
  return data<ModelVersion[]>(versionsPath(modelId));
}

/** One version of the model. */
export function getVersion(modelId: string, number: number): Promise<ModelVersion> {
  return data<ModelVersion>(`${versionsPath(modelId)}/${number}`);
}

/**
 * Sends a new version of the model as one multipart request (reporting the bytes sent), which the server queues
 * for conversion; the model keeps serving its current version meanwhile. Several files are one version with its
 * resources (an OBJ with its MTL and textures, a glTF with its .bin), each a `file` field named with its folder
 * when it came from a chosen folder, as a model upload of several files is.
 */
export async function uploadVersion(
  modelId: string,
  files: readonly File[],
  fields: UploadFields,
  progress: UploadProgress,
): Promise<ModelVersion> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) if (value) form.append(key, value);
  for (const file of files) form.append('file', file, file.webkitRelativePath || file.name);
  return (await postForm<{ version: ModelVersion }>(versionsPath(modelId), form, progress)).version;
}

/** Converts a failed version again from the file it was sent with; answers the version, pending again. */
export async function reprocessVersion(modelId: string, number: number): Promise<ModelVersion> {
  return (
    await data<{ version: ModelVersion }>(`${versionsPath(modelId)}/${number}/reprocess`, { method: 'POST' })
  ).version;
}

/** Makes a completed version the current one again; answers the model as it now is. */
export async function restoreVersion(modelId: string, number: number): Promise<void> {
  await request(`${versionsPath(modelId)}/${number}/restore`, { method: 'POST' });
}

/** Deletes a version that is not the current one, with its files. */
export async function deleteVersion(modelId: string, number: number): Promise<void> {
  await request(`${versionsPath(modelId)}/${number}`, { method: 'DELETE' });
}

/** The part-level diff from version `a` to version `b`. */
export function diffVersions(modelId: string, a: number, b: number): Promise<VersionDiff> {
  return data<VersionDiff>(`${versionsPath(modelId)}/${a}/diff/${b}`);
}

/**
 * A version's levels in the shape the level loader takes, finest first. A level that does not say whether it
 * shrank is taken as a file of its own unless it repeats the size and count of the one before.
 */
export function versionLods(version: ModelVersion): Lod[] {
  return [...version.lods]
    .sort((a, b) => a.level - b.level)
    .map((lod) => ({ ...lod, error: lod.error ?? null, reduced: lod.reduced ?? null }));
}
