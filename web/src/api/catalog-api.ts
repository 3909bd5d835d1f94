/** Client of the model catalog (`/api/models`, envelope `{success, data, meta?}`). */
import { request } from './http.ts';
import type { Lod, Model, ModelPage, ModelPatch, ModelQuery, Part, PartWithProperties } from './types.ts';

const BASE = '/api/models';

interface Envelope<T> {
  success: boolean;
  data: T;
  meta?: { total: number; limit: number; offset: number };
}

async function call<T>(path: string, options: Parameters<typeof request>[1] = {}): Promise<Envelope<T>> {
  return (await request(BASE + path, options)) as Envelope<T>;
}

/** Lists models newest first with the filters and paging the server applied. */
export async function listModels(query: ModelQuery): Promise<ModelPage> {
  const answer = await call<Model[]>('', { query: { ...query } });
  const meta = answer.meta ?? {
    total: answer.data.length,
    limit: query.limit ?? 20,
    offset: query.offset ?? 0,
  };
  return { models: answer.data, total: meta.total, limit: meta.limit, offset: meta.offset };
}

/** Reads one model. */
export async function getModel(id: string): Promise<Model> {
  return (await call<Model>(`/${encodeURIComponent(id)}`)).data;
}

/** Reads the parts of a converted model, in scene order, with their bound materials. */
export async function getParts(id: string): Promise<Part[]> {
  return (await call<Part[]>(`/${encodeURIComponent(id)}/parts`)).data;
}

/** Reads one part with the properties read from its source file. */
export async function getPart(id: string, groupId: string): Promise<PartWithProperties> {
  return (await call<PartWithProperties>(`/${encodeURIComponent(id)}/parts/${encodeURIComponent(groupId)}`))
    .data;
}

/** The parts whose properties meet one `Set.Name=value` condition (a 400 names a condition it cannot read). */
export async function findParts(id: string, where: string): Promise<Part[]> {
  return (await call<Part[]>(`/${encodeURIComponent(id)}/parts`, { query: { where } })).data;
}

/** Reads the levels of detail of a converted model. */
export async function getLods(id: string): Promise<Lod[]> {
  return (await call<Lod[]>(`/${encodeURIComponent(id)}/lod`)).data;
}

/** Reads one level of detail's URL afresh (a kept one may have expired). */
export async function getLod(id: string, level: number): Promise<{ url: string; level: number }> {
  return (await call<{ url: string; level: number }>(`/${encodeURIComponent(id)}/lod/${level}`)).data;
}

/** Changes name, description or tags. */
export async function updateModel(id: string, patch: ModelPatch): Promise<Model> {
  return (await call<Model>(`/${encodeURIComponent(id)}`, { method: 'PATCH', body: patch })).data;
}

/** Deletes the model, its files and its parts. */
export async function deleteModel(id: string): Promise<void> {
  await call<unknown>(`/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** Replaces the thumbnail with a PNG or JPEG image. */
export async function uploadThumbnail(id: string, image: File): Promise<Model> {
  const form = new FormData();
  form.append('thumbnail', image, image.name);
  return (await call<Model>(`/${encodeURIComponent(id)}/thumbnail`, { method: 'POST', body: form })).data;
}

/** Queues a new rendering of the thumbnail. */
export async function regenerateThumbnail(id: string): Promise<void> {
  await call<unknown>(`/${encodeURIComponent(id)}/regenerate-thumbnail`, { method: 'POST' });
}

/** Puts a (failed) model back into the conversion queue. */
export async function reprocessModel(id: string): Promise<Model> {
  return (await call<Model>(`/${encodeURIComponent(id)}/reprocess`, { method: 'POST' })).data;
}
