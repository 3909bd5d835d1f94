import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { MODEL_NOT_FOUND, ModelIdParams } from '../catalog/schemas.ts';
import { ApiError } from '../http/api-error.ts';
import { installApiFamily } from '../http/api-family.ts';
import { catalogEnvelope, CatalogErrorSchema, CATALOG_FAMILY } from '../http/catalog-family.ts';
import { planImport, type TopicImport } from './bcf/import-bcf.ts';
import { loadPartHierarchy } from './bcf/load-part-hierarchy.ts';
import { readBcf, type BcfTopic } from './bcf/read-bcf.ts';
import { unzipBcf } from './bcf/unzip-bcf.ts';
import { writeBcf } from './bcf/write-bcf.ts';
import { authorOf, existingModel, type ReviewRoutesOptions } from './review-context.ts';
import { TopicSchema } from './topic-schemas.ts';

/** Largest BCF file the import takes. */
export const MAX_BCF_UPLOAD_BYTES = 50 * 1024 * 1024;

const tags = ['review'];
const errors = {
  400: CatalogErrorSchema,
  401: CatalogErrorSchema,
  403: CatalogErrorSchema,
  404: CatalogErrorSchema,
  413: CatalogErrorSchema,
};
const ZIP_TYPES = ['application/zip', 'application/octet-stream', 'application/x-bcf'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The id a topic takes in a model when its Guid is already another model's annotation or view (the same BCF
 * imported into two models): derived from both, so importing it again finds it and skips it.
 */
export function importedId(guid: string, modelId: string): string {
  const hex = createHash('sha256').update(`${modelId}/${guid}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** What an import answers. */
const BcfImportSchema = Type.Object({
  imported: Type.Integer({ description: 'Topics made annotations.' }),
  views: Type.Integer({ description: 'Topics made saved views (a camera and no selected part).' }),
  notes: Type.Integer({
    description: 'Topics kept as unpinned notes (no viewpoint, or nothing to pin or show).',
  }),
  skipped: Type.Integer({
    description: 'Topics left out because they were imported before; `skipped_topics` lists them.',
  }),
  skipped_topics: Type.Array(
    Type.Object({ guid: Type.String(), title: Type.String(), reason: Type.String() }),
  ),
  topics: Type.Array(
    Type.Object({
      guid: Type.String({ description: "The topic's Guid in the file." }),
      title: Type.String(),
      became: Type.Union([Type.Literal('annotation'), Type.Literal('view'), Type.Literal('note')]),
      id: Type.String({ description: 'The topic id; also the annotation or view id it became.' }),
    }),
    { description: 'What each imported topic became, in the order of the file.' },
  ),
});

/** Whether some component of the topics' viewpoints is no part of the model (then the node tree is needed). */
function namesOtherObjects(topics: readonly BcfTopic[], groupIds: ReadonlySet<string>): boolean {
  return topics.some(({ viewpoint }) =>
    [...(viewpoint?.selected ?? []), ...(viewpoint?.exceptions ?? [])].some(
      ({ ifcGuid, authoringToolId }) =>
        !(ifcGuid && groupIds.has(ifcGuid)) && !(authoringToolId && groupIds.has(authoringToolId)),
    ),
  );
}

/** A file name for the attachment header: the model's name without what a header or a file system refuses. */
function attachmentName(name: string): string {
  const safe = name.replace(/[^\w .()-]+/g, '_').trim() || 'model';
  return `${safe}.bcf`;
}

/** The bytes of the uploaded BCF: the multipart field `file`, or the whole body sent as a zip. */
async function uploadedBcf(request: FastifyRequest): Promise<Buffer> {
  if (request.isMultipart()) {
    for await (const part of request.parts({ limits: { fileSize: MAX_BCF_UPLOAD_BYTES, files: 1 } })) {
      if (part.type === 'file' && part.fieldname === 'file') {
        const bytes = await part.toBuffer();
        if (part.file.truncated)
          throw new ApiError(413, `The BCF file is larger than ${MAX_BCF_UPLOAD_BYTES} bytes`);
        return bytes;
      }
      if (part.type === 'file') part.file.resume();
    }
    throw new ApiError(400, 'No BCF file provided (multipart field `file`)');
  }
  if (!Buffer.isBuffer(request.body) || request.body.length === 0) {
    throw new ApiError(
      400,
      'No BCF file provided: send it as multipart field `file` or as an application/zip body',
    );
  }
  return request.body;
}

/**
 * `GET /api/models/:id/bcf` and `POST /api/models/:id/bcf`: the model's annotations and saved views as a BCF 3.0
 * zip, and the import of one, so reviews travel to and from BIM tools.
 */
export const bcfRoutes: FastifyPluginAsync<ReviewRoutesOptions> = async (fastify, options) => {
  const { models, annotations, views, topics, events } = options;
  installApiFamily(fastify, {
    checkToken: options.checkToken,
    ...CATALOG_FAMILY,
    notFoundMessage: undefined,
  });
  await fastify.register(multipart);
  fastify.addContentTypeParser(
    ZIP_TYPES,
    { parseAs: 'buffer', bodyLimit: MAX_BCF_UPLOAD_BYTES },
    (_r, body, done) => done(null, body),
  );
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/:id/bcf',
    {
      schema: {
        operationId: 'exportBcf',
        tags,
        summary: "The model's annotations and saved views as a BCF 3.0 zip",
        description:
          'One topic per annotation (type `Issue`; title: the first line; comment: the text; status `Open` or ' +
          '`Closed`) with a viewpoint selecting its part (`IfcGuid` when the group id is an IFC GlobalId, and ' +
          '`AuthoringToolId` = group id), a camera looking at the pin along its normal and a short line from the ' +
          'pin along its normal; one topic per saved view (type `View`) with its camera, visibility and clipping ' +
          "planes. Coordinates are turned to BCF's +Z up.",
        params: ModelIdParams,
        response: {
          200: {
            description: 'The BCF zip.',
            content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const model = await existingModel(models, request.params.id);
      const [parts, annotationList, viewList, topicList] = await Promise.all([
        models.parts(model.id),
        annotations.list(model.id),
        views.list(model.id),
        topics.list(model.id),
      ]);
      const zip = writeBcf({ model, parts, annotations: annotationList, views: viewList, topics: topicList });
      return reply
        .type('application/octet-stream')
        .header('content-disposition', `attachment; filename="${attachmentName(model.name)}"`)
        .header('cache-control', 'no-store')
        .send(Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength));
    },
  );

  app.post(
    '/:id/bcf',
    {
      schema: {
        operationId: 'importBcf',
        tags,
        summary: 'Import a BCF 3.0 zip: its topics become annotations (and its `View` topics saved views)',
        description:
          'Send the zip as multipart field `file` or as the body (`application/zip`). A topic becomes an ' +
          'annotation on the part its viewpoint selects, matched by `IfcGuid` or `AuthoringToolId` against the ' +
          "model's group ids; the pin is the viewpoint's first line's start, else the point of the camera's line " +
          "of sight nearest the part's centre, else that centre. Author, dates and status (`Closed`, " +
          '`Resolved`, `Done` = resolved) come from the topic. A topic already imported into this model (same ' +
          'Guid) is skipped, so importing twice adds nothing. Publishes `annotation.created` / `view.created`.',
        params: ModelIdParams,
        multipartBody: Type.Object({ file: Type.String({ format: 'binary' }) }),
        response: { 200: catalogEnvelope(BcfImportSchema), ...errors },
      },
    },
    async (request) => {
      const model = await existingModel(models, request.params.id);
      const read = readBcf(await unzipBcf(await uploadedBcf(request)));
      const parts = await models.parts(model.id);
      const groupIds = new Set(parts.map((part) => part.group_id));
      // Without the tree (a LOD 0 file gone from the store), aggregates stay unresolved: topics are still all kept.
      const hierarchy = namesOtherObjects(read, groupIds)
        ? await loadPartHierarchy(options.blobs, model, parts).catch((error: Error) => {
            request.log.warn({ err: error, model_id: model.id }, 'BCF import: LOD 0 node tree unreadable');
            return undefined;
          })
        : undefined;
      const plan = planImport(read, parts, hierarchy);
      const fallbackAuthor = await authorOf(options, request);
      const skipped: { guid: string; title: string; reason: string }[] = [];
      const kept: { guid: string; title: string; became: TopicImport['kind']; id: string }[] = [];
      for (const item of plan) {
        const outcome = await importOne(item, model.id, fallbackAuthor);
        if ('reason' in outcome) skipped.push(outcome);
        else kept.push({ guid: item.guid, title: item.topic.title, became: item.kind, id: outcome.id });
      }
      const count = (kind: TopicImport['kind']) => kept.filter((topic) => topic.became === kind).length;
      return {
        success: true as const,
        data: {
          imported: count('annotation'),
          views: count('view'),
          notes: count('note'),
          skipped: skipped.length,
          skipped_topics: skipped,
          topics: kept,
        },
      };
    },
  );

  app.get(
    '/:id/topics',
    {
      schema: {
        operationId: 'listTopics',
        tags,
        summary: "The model's imported BCF topics, oldest first",
        description:
          'What each imported topic says beyond the annotation or saved view it became (title, type, status, ' +
          'priority, labels, due date, assignee, stage, description, author, comments); a topic with neither ' +
          'link is an unpinned note. The export writes them again.',
        params: ModelIdParams,
        response: { 200: catalogEnvelope(Type.Array(TopicSchema)), ...errors },
      },
    },
    async (request) => {
      const model = await existingModel(models, request.params.id);
      return { success: true as const, data: await topics.list(model.id) };
    },
  );

  /** Stores one planned topic with what it became, and announces it; its id, or why it was skipped. */
  async function importOne(
    item: TopicImport,
    modelId: string,
    fallbackAuthor: string | null,
  ): Promise<{ id: string } | { guid: string; title: string; reason: string }> {
    // A topic keeps its Guid as id when it is a uuid no other model uses; else the id derived from it and the model.
    const derived = importedId(item.guid, modelId);
    const id = UUID.test(item.guid) ? item.guid : derived;
    const already = { guid: item.guid, title: item.topic.title, reason: 'already imported' };
    const wasImported = async (lookup: (candidate: string) => Promise<unknown>) =>
      Boolean(
        (await lookup(id)) ||
        (await lookup(derived)) ||
        (await topics.get(modelId, id)) ||
        (await topics.get(modelId, derived)),
      );
    const storeTopic = async (topicId: string, link: { annotation_id?: string; view_id?: string }) => {
      const stored = await topics.create(
        {
          ...item.topic,
          id: topicId,
          model_id: modelId,
          annotation_id: link.annotation_id ?? null,
          view_id: link.view_id ?? null,
        },
        derived,
      );
      if (!stored) throw new ApiError(404, MODEL_NOT_FOUND);
      return { id: stored.id };
    };
    if (item.kind === 'annotation') {
      if (await wasImported((candidate) => annotations.get(modelId, candidate))) return already;
      const created = await annotations.create({
        ...item.annotation,
        id,
        alternate_id: derived,
        model_id: modelId,
        author: item.annotation.author ?? fallbackAuthor,
      });
      if (!created) throw new ApiError(404, MODEL_NOT_FOUND);
      const stored = await storeTopic(created.id, { annotation_id: created.id });
      await events.publish('annotation.created', {
        model_id: modelId,
        annotation_id: created.id,
        group_id: created.group_id,
      });
      return stored;
    }
    if (item.kind === 'view') {
      if (await wasImported((candidate) => views.get(modelId, candidate))) return already;
      const author = item.author ?? fallbackAuthor;
      const created = await views.create(modelId, item.view, author, item.created_at, id, derived);
      if (!created) throw new ApiError(404, MODEL_NOT_FOUND);
      const stored = await storeTopic(created.id, { view_id: created.id });
      await events.publish('view.created', { model_id: modelId, view_id: created.id });
      return stored;
    }
    if (await wasImported(async () => undefined)) return already;
    return storeTopic(id, {});
  }
};
