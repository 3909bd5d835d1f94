/** Client of one share link's routes (`/s/<secret>/…`): no token, nothing outside the link. */
import type { Annotation } from '../api/review-api.ts';
import type { Lod, Model, Part } from '../api/types.ts';

/** A shared model as `/s/<secret>/models` shows it. */
export interface SharedModel {
  id: string;
  name: string;
  description: string;
  status: string;
  lods: Lod[];
  thumbnail_url: string | null;
  triangle_count: number | null;
  part_count: number | null;
  /** The units lengths are read in, as the catalog has them. */
  source_unit: Model['source_unit'];
  unit: Model['unit'];
  /** The model's 3D Tiles tileset under the link, or null when the model is small enough to open whole. */
  tileset_url?: string | null;
  /** Whether the link shows the model's annotations (read-only). */
  annotations?: boolean;
  /** Whether the link shows the model's configurations (read-only) and their files. */
  configurations?: boolean;
}

/** A configuration as a link made with `configurations: true` shows it. */
export interface SharedConfiguration {
  id: string;
  name: string;
  description: string;
  thumbnail_url: string | null;
}

/** Thrown when the link is revoked or unknown. */
export class LinkGoneError extends Error {
  override readonly name = 'LinkGoneError';
}

/** `/s/<secret>` of the page being shown, from its address. */
export function shareBasePath(pathname: string = location.pathname): string {
  const match = /^\/s\/[^/]+/.exec(pathname);
  if (!match) throw new LinkGoneError('This page is not a share link.');
  return match[0];
}

async function read<T>(path: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new Error('Cannot reach the server.');
  }
  if (response.status === 404) throw new LinkGoneError('This link is not available.');
  const body = (await response.json().catch(() => undefined)) as
    { success: true; data: T } | { success: false; error: string } | undefined;
  if (!response.ok || !body || !body.success) {
    throw new Error(body && !body.success ? body.error : `The server answered ${response.status}.`);
  }
  return body.data;
}

/** The one model the link opens. */
export async function getSharedModel(base: string): Promise<SharedModel> {
  const [model] = await read<SharedModel[]>(`${base}/models`);
  if (!model) throw new LinkGoneError('This link is not available.');
  return model;
}

/** The shared model's parts, each with its bound material, or with a configuration's over the bound ones. */
export function getSharedParts(base: string, id: string, configurationId?: string): Promise<Part[]> {
  const query = configurationId ? `?configuration_id=${encodeURIComponent(configurationId)}` : '';
  return read<Part[]>(`${base}/models/${encodeURIComponent(id)}/parts${query}`);
}

/** The shared model's configurations; only a link made with `configurations: true` answers. */
export function getSharedConfigurations(base: string, id: string): Promise<SharedConfiguration[]> {
  return read<SharedConfiguration[]>(`${base}/models/${encodeURIComponent(id)}/configurations`);
}

/** Address of a configuration's file under the link: its GLB, or its USDZ for AR Quick Look. */
export function sharedConfigurationFile(
  base: string,
  id: string,
  configurationId: string,
  format: 'glb' | 'usdz',
): string {
  return `${base}/models/${encodeURIComponent(id)}/configurations/${encodeURIComponent(configurationId)}/model.${format}`;
}

/** The shared model's annotations; only a link made with `annotations: true` answers. */
export function getSharedAnnotations(base: string, id: string): Promise<Annotation[]> {
  return read<Annotation[]>(`${base}/models/${encodeURIComponent(id)}/annotations`);
}
