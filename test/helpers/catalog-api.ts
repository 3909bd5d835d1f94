import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { makeZip } from '../fixtures/make-zip.ts';
import { multipartForm, type MultipartFile } from './multipart.ts';
import { SAMPLE_MODELS } from './sample-models.ts';
import type { ModelJson } from './wait-for-status.ts';

/** What one call to the catalog answered: status, headers, raw body and the parsed JSON. */
export interface CatalogAnswer {
  status: number;
  text: string;
  headers: Record<string, string | string[] | number | undefined>;
  // Tests assert on the shape, so the parsed body stays loosely typed.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** Bytes of a sample model, e.g. `sample('glb/CesiumMilkTruck.glb')`. */
export function sample(relative: string): Buffer {
  return fs.readFileSync(path.join(SAMPLE_MODELS, relative));
}

/** The BoxTextured sample (a .gltf with its .bin and .png) zipped together. */
export function boxTexturedZip(): Buffer {
  const folder = path.join(SAMPLE_MODELS, 'gltf', 'BoxTextured');
  return makeZip(
    fs.readdirSync(folder).map((name) => ({ name, data: fs.readFileSync(path.join(folder, name)) })),
  );
}

/** The catalog error body, byte for byte. */
export function catalogError(error: string): string {
  return JSON.stringify({ success: false, error });
}

/** Calls the catalog under `/api/models` through `app.inject` with the token. */
export function catalogApi(app: FastifyInstance, auth: Record<string, string>) {
  const answer = (response: Awaited<ReturnType<FastifyInstance['inject']>>): CatalogAnswer => {
    let json: unknown;
    try {
      json = JSON.parse(response.body);
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, text: response.body, headers: response.headers, json };
  };
  const call = async (method: string, url: string, body?: unknown): Promise<CatalogAnswer> => {
    const hasBody = body !== undefined;
    const response = await app.inject({
      method: method as 'GET',
      url: `/api/models${url}`,
      headers: hasBody ? { ...auth, 'content-type': 'application/json' } : auth,
      payload: hasBody ? (typeof body === 'string' ? body : JSON.stringify(body)) : undefined,
    });
    return answer(response);
  };
  const postForm = async (
    url: string,
    fields: Record<string, string>,
    file?: MultipartFile | readonly MultipartFile[],
  ): Promise<CatalogAnswer> => {
    const form = multipartForm(fields, file);
    const response = await app.inject({
      method: 'POST',
      url: `/api/models${url}`,
      headers: { ...auth, ...form.headers },
      payload: form.payload,
    });
    return answer(response);
  };
  return {
    call,
    postForm,
    /** Uploads a model file (field `file`) with optional `name`/`description` fields. */
    upload(filename: string, data: Uint8Array | string, fields: Record<string, string> = {}) {
      return postForm('', fields, { field: 'file', filename, data });
    },
    /** Uploads several files in one request, each as a `file` field named by its key (folders allowed). */
    uploadFiles(files: Record<string, Uint8Array | string>, fields: Record<string, string> = {}) {
      const parts = Object.entries(files).map(([filename, data]) => ({ field: 'file', filename, data }));
      return postForm('', fields, parts);
    },
    /** Uploads and returns the created model, failing loudly when the catalog refuses. */
    async create(
      filename: string,
      data: Uint8Array | string,
      fields: Record<string, string> = {},
    ): Promise<ModelJson> {
      const created = await postForm('', fields, { field: 'file', filename, data });
      if (created.status !== 201) throw new Error(`upload answered ${created.status}: ${created.text}`);
      return created.json.data;
    },
    /** Uploads a thumbnail (field `thumbnail`) for a model. */
    thumbnail(id: string, filename: string, data: Uint8Array, contentType = 'image/png') {
      return postForm(`/${id}/thumbnail`, {}, { field: 'thumbnail', filename, data, contentType });
    },
  };
}

/**
 * The file a handed-out URL names, without its query: a signed URL's expiry moves on by itself when the clock
 * crosses a signing window, so two URLs of one file are compared by this.
 */
export function fileOf(url: string): string {
  return new URL(url).pathname;
}

/**
 * A copy of `value` with every signed file URL's query taken off, for comparing answers read minutes apart: their
 * URLs name the same files but the expiry may have stepped on in between.
 */
export function withoutSignatures<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value).replace(/\?expires=\d+(?:&grant=[^&"]*)?&signature=[\w-]+/g, ''),
  ) as T;
}

/** The path part of a handed-out URL, for `app.inject`. */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}
