import { randomUUID } from 'node:crypto';
import type { ModelPartRow, ModelRow } from '../../db/database.ts';
import { writeZip, type ZipFile } from '../../writers/write-zip.ts';
import type { Annotation, SavedView } from '../schemas.ts';
import { annotationViewpoint, savedViewViewpoint } from './write-viewpoint.ts';
import { el, leaf, xmlDocument, type XmlElement } from './xml-write.ts';

/** The topic type of an annotation. */
export const ISSUE_TOPIC = 'Issue';
/** The topic type of a saved view; the import makes such topics saved views again. */
export const VIEW_TOPIC = 'View';
/** Labels a view topic carries for what BCF has no field for: x-ray and the level of detail. */
export const XRAY_LABEL = 'x-ray';
/** The label of a view topic's level of detail, `LOD 0` to `LOD 2`. */
export const levelLabel = (level: number) => `LOD ${level}`;
/** The author written for what the admin token wrote (BCF requires one). */
export const UNNAMED_AUTHOR = 'Vitrine';
/** The longest topic title written; the whole text is the topic's comment. */
export const MAX_TITLE = 200;
/** The name of each topic's viewpoint file. */
export const VIEWPOINT_FILE = 'viewpoint.bcfv';

/** What a BCF export is made of. */
export interface BcfContent {
  model: ModelRow;
  parts: readonly ModelPartRow[];
  annotations: readonly Annotation[];
  views: readonly SavedView[];
}

/** The first line of a text, cut to {@link MAX_TITLE} characters: the topic's title. */
export function titleOf(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? text;
  const trimmed = line.trim();
  if (trimmed === '') return 'Annotation';
  return trimmed.length > MAX_TITLE ? `${trimmed.slice(0, MAX_TITLE - 1)}…` : trimmed;
}

function markup(
  model: ModelRow,
  topic: {
    guid: string;
    type: string;
    status: string;
    title: string;
    labels: string[];
    created: string;
    author: string;
    modified?: string;
    comment?: string;
    viewpointGuid: string;
  },
): XmlElement {
  // The model file the topic is about, so a BIM tool can tell which of its files to open.
  const header = el(
    'Header',
    {},
    el('Files', {}, el('File', { IsExternal: true }, leaf('Filename', model.original_filename))),
  );
  return el(
    'Markup',
    {},
    header,
    el(
      'Topic',
      { Guid: topic.guid, TopicType: topic.type, TopicStatus: topic.status },
      leaf('Title', topic.title),
      topic.labels.length > 0
        ? el('Labels', {}, ...topic.labels.map((label) => leaf('Label', label)))
        : undefined,
      leaf('CreationDate', topic.created),
      leaf('CreationAuthor', topic.author),
      topic.modified ? leaf('ModifiedDate', topic.modified) : undefined,
      topic.comment
        ? el(
            'Comments',
            {},
            el(
              'Comment',
              { Guid: randomUUID() },
              leaf('Date', topic.created),
              leaf('Author', topic.author),
              leaf('Comment', topic.comment),
              el('Viewpoint', { Guid: topic.viewpointGuid }),
            ),
          )
        : undefined,
      el('Viewpoints', {}, el('ViewPoint', { Guid: topic.viewpointGuid }, leaf('Viewpoint', VIEWPOINT_FILE))),
    ),
  );
}

function extensions(authors: string[]): XmlElement {
  const list = (name: string, item: string, values: string[]) =>
    el(name, {}, ...values.map((v) => leaf(item, v)));
  return el(
    'Extensions',
    {},
    list('TopicTypes', 'TopicType', [ISSUE_TOPIC, VIEW_TOPIC]),
    list('TopicStatuses', 'TopicStatus', ['Open', 'Closed']),
    list('TopicLabels', 'TopicLabel', [XRAY_LABEL, levelLabel(0), levelLabel(1), levelLabel(2)]),
    authors.length > 0 ? list('Users', 'User', authors) : undefined,
  );
}

/**
 * Writes a model's annotations and saved views as a BCF 3.0 zip: `bcf.version`, `extensions.xml`, and one folder
 * per topic (named by its Guid, the annotation's or view's id) holding `markup.bcf` and `viewpoint.bcfv`.
 */
export function writeBcf(content: BcfContent): Uint8Array {
  const encoder = new TextEncoder();
  const file = (name: string, root: XmlElement): ZipFile => ({
    name,
    data: encoder.encode(xmlDocument(root)),
  });
  const partByGroup = new Map(content.parts.map((part) => [part.group_id, part]));
  const authors = new Set<string>();
  const files: ZipFile[] = [file('bcf.version', el('Version', { VersionId: '3.0' }))];
  for (const annotation of content.annotations) {
    const author = annotation.author ?? UNNAMED_AUTHOR;
    authors.add(author);
    const viewpointGuid = randomUUID();
    files.push(
      file(
        `${annotation.id}/markup.bcf`,
        markup(content.model, {
          guid: annotation.id,
          type: ISSUE_TOPIC,
          status: annotation.resolved ? 'Closed' : 'Open',
          title: titleOf(annotation.text),
          labels: [],
          created: annotation.created_at,
          author,
          modified: annotation.updated_at,
          comment: annotation.text.trim() === '' ? undefined : annotation.text,
          viewpointGuid,
        }),
      ),
      file(
        `${annotation.id}/${VIEWPOINT_FILE}`,
        annotationViewpoint(viewpointGuid, annotation, partByGroup.get(annotation.group_id)),
      ),
    );
  }
  for (const view of content.views) {
    const author = view.author ?? UNNAMED_AUTHOR;
    authors.add(author);
    const viewpointGuid = randomUUID();
    files.push(
      file(
        `${view.id}/markup.bcf`,
        markup(content.model, {
          guid: view.id,
          type: VIEW_TOPIC,
          status: 'Open',
          title: view.name,
          labels: [...(view.xray ? [XRAY_LABEL] : []), levelLabel(view.level)],
          created: view.created_at,
          author,
          viewpointGuid,
        }),
      ),
      file(`${view.id}/${VIEWPOINT_FILE}`, savedViewViewpoint(viewpointGuid, view)),
    );
  }
  files.splice(1, 0, file('extensions.xml', extensions([...authors].sort())));
  return writeZip(files, { deflate: true });
}
