import { randomUUID } from 'node:crypto';
import type { ModelPartRow, ModelRow } from '../../db/database.ts';
import { writeZip, type ZipFile } from '../../writers/write-zip.ts';
import type { Annotation, SavedView } from '../schemas.ts';
import type { Topic, TopicComment } from '../topic-schemas.ts';
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
  /** Imported topics: what they say is written with the annotation or view they became, or alone (unpinned). */
  topics: readonly Topic[];
}

/** Statuses read as resolved; any other is open. */
export const RESOLVED_STATUSES = new Set(['closed', 'resolved', 'done']);

/** What one topic's markup says. */
interface MarkupTopic {
  guid: string;
  type: string;
  status: string;
  title: string;
  priority?: string | null;
  labels: string[];
  created: string;
  author: string;
  modified?: string | null;
  modifiedAuthor?: string | null;
  dueDate?: string | null;
  assignedTo?: string | null;
  stage?: string | null;
  description?: string | null;
  comments: TopicComment[];
  /** The viewpoint's Guid; none for an unpinned note. */
  viewpointGuid?: string;
}

/** The first line of a text, cut to {@link MAX_TITLE} characters: the topic's title. */
export function titleOf(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? text;
  const trimmed = line.trim();
  if (trimmed === '') return 'Annotation';
  return trimmed.length > MAX_TITLE ? `${trimmed.slice(0, MAX_TITLE - 1)}…` : trimmed;
}

function markup(model: ModelRow, topic: MarkupTopic): XmlElement {
  // The model file the topic is about, so a BIM tool can tell which of its files to open.
  const header = el(
    'Header',
    {},
    el('Files', {}, el('File', { IsExternal: true }, leaf('Filename', model.original_filename))),
  );
  const optional = (name: string, value: string | null | undefined) =>
    value ? leaf(name, value) : undefined;
  return el(
    'Markup',
    {},
    header,
    el(
      'Topic',
      { Guid: topic.guid, TopicType: topic.type, TopicStatus: topic.status },
      leaf('Title', topic.title.trim() === '' ? 'Untitled topic' : topic.title),
      optional('Priority', topic.priority),
      topic.labels.length > 0
        ? el('Labels', {}, ...topic.labels.map((label) => leaf('Label', label)))
        : undefined,
      leaf('CreationDate', topic.created),
      leaf('CreationAuthor', topic.author),
      optional('ModifiedDate', topic.modified),
      optional('ModifiedAuthor', topic.modifiedAuthor),
      optional('DueDate', topic.dueDate),
      optional('AssignedTo', topic.assignedTo),
      optional('Stage', topic.stage),
      optional('Description', topic.description),
      topic.comments.length > 0
        ? el(
            'Comments',
            {},
            ...topic.comments.map((comment) =>
              el(
                'Comment',
                { Guid: comment.guid },
                leaf('Date', comment.date),
                leaf('Author', comment.author.trim() === '' ? UNNAMED_AUTHOR : comment.author),
                comment.text ? leaf('Comment', comment.text) : undefined,
                topic.viewpointGuid ? el('Viewpoint', { Guid: topic.viewpointGuid }) : undefined,
                optional('ModifiedDate', comment.modified_date),
                optional('ModifiedAuthor', comment.modified_author),
              ),
            ),
          )
        : undefined,
      topic.viewpointGuid
        ? el(
            'Viewpoints',
            {},
            el('ViewPoint', { Guid: topic.viewpointGuid }, leaf('Viewpoint', VIEWPOINT_FILE)),
          )
        : undefined,
    ),
  );
}

/** The fields an imported topic gives its markup, as it was read. */
function fromTopic(topic: Topic): Omit<MarkupTopic, 'guid' | 'viewpointGuid'> {
  return {
    // BCF requires both; a file that left them blank gets the defaults.
    type: topic.topic_type || ISSUE_TOPIC,
    status: topic.status || 'Open',
    title: topic.title,
    priority: topic.priority,
    labels: topic.labels,
    created: topic.created_at,
    author: topic.author ?? UNNAMED_AUTHOR,
    modified: topic.modified_at,
    modifiedAuthor: topic.modified_author,
    dueDate: topic.due_date,
    assignedTo: topic.assigned_to,
    stage: topic.stage,
    description: topic.description,
    comments: topic.comments,
  };
}

/**
 * The markup of an annotation that came from an imported topic: the topic as read, with the annotation's changes
 * since: its status when resolved or reopened here, and its text as a new comment when edited here.
 */
function annotationTopic(annotation: Annotation, topic: Topic): Omit<MarkupTopic, 'guid' | 'viewpointGuid'> {
  const fields = fromTopic(topic);
  const resolvedThere = RESOLVED_STATUSES.has(topic.status.toLowerCase());
  const status =
    resolvedThere === annotation.resolved ? topic.status : annotation.resolved ? 'Closed' : 'Open';
  const said = [
    topic.title,
    topic.description ?? '',
    ...topic.comments.map((comment) => comment.text),
  ].filter((text) => text.trim() !== '');
  const edited = !said.some((text) => text.trim() === annotation.text.trim());
  const lastChange = topic.modified_at ?? topic.created_at;
  return {
    ...fields,
    status,
    modified: annotation.updated_at > lastChange ? annotation.updated_at : topic.modified_at,
    comments: edited
      ? [
          ...topic.comments,
          {
            guid: randomUUID(),
            date: annotation.updated_at,
            author: annotation.author ?? UNNAMED_AUTHOR,
            text: annotation.text,
            modified_date: null,
            modified_author: null,
          },
        ]
      : topic.comments,
  };
}

/** The one comment of an annotation made here: its whole text. */
function annotationComment(annotation: Annotation, author: string): TopicComment[] {
  if (annotation.text.trim() === '') return [];
  return [
    {
      guid: randomUUID(),
      date: annotation.created_at,
      author,
      text: annotation.text,
      modified_date: null,
      modified_author: null,
    },
  ];
}

/** The values the topics use, for `extensions.xml`. */
interface UsedValues {
  types: Set<string>;
  statuses: Set<string>;
  priorities: Set<string>;
  labels: Set<string>;
  users: Set<string>;
  stages: Set<string>;
}

function extensions(used: UsedValues): XmlElement {
  const list = (name: string, item: string, values: Set<string>) => {
    const sorted = [...values].filter((value) => value.trim() !== '').sort();
    return sorted.length > 0 ? el(name, {}, ...sorted.map((v) => leaf(item, v))) : undefined;
  };
  return el(
    'Extensions',
    {},
    list('TopicTypes', 'TopicType', used.types),
    list('TopicStatuses', 'TopicStatus', used.statuses),
    list('Priorities', 'Priority', used.priorities),
    list('TopicLabels', 'TopicLabel', used.labels),
    list('Users', 'User', used.users),
    list('Stages', 'Stage', used.stages),
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
  const byAnnotation = new Map(
    content.topics.flatMap((t) => (t.annotation_id ? [[t.annotation_id, t]] : [])),
  );
  const byView = new Map(content.topics.flatMap((t) => (t.view_id ? [[t.view_id, t]] : [])));
  const used: UsedValues = {
    types: new Set([ISSUE_TOPIC, VIEW_TOPIC]),
    statuses: new Set(['Open', 'Closed']),
    priorities: new Set(),
    labels: new Set([XRAY_LABEL, levelLabel(0), levelLabel(1), levelLabel(2)]),
    users: new Set(),
    stages: new Set(),
  };
  const files: ZipFile[] = [file('bcf.version', el('Version', { VersionId: '3.0' }))];
  const addTopic = (
    guid: string,
    topic: Omit<MarkupTopic, 'guid' | 'viewpointGuid'>,
    viewpoint?: (guid: string) => XmlElement,
  ) => {
    used.types.add(topic.type);
    used.statuses.add(topic.status);
    if (topic.priority) used.priorities.add(topic.priority);
    for (const label of topic.labels) used.labels.add(label);
    for (const user of [topic.author, topic.assignedTo, ...topic.comments.map((comment) => comment.author)]) {
      if (user) used.users.add(user);
    }
    if (topic.stage) used.stages.add(topic.stage);
    const viewpointGuid = viewpoint ? randomUUID() : undefined;
    files.push(file(`${guid}/markup.bcf`, markup(content.model, { ...topic, guid, viewpointGuid })));
    if (viewpoint && viewpointGuid) files.push(file(`${guid}/${VIEWPOINT_FILE}`, viewpoint(viewpointGuid)));
  };
  for (const annotation of content.annotations) {
    const author = annotation.author ?? UNNAMED_AUTHOR;
    const topic = byAnnotation.get(annotation.id);
    const viewpoint = (guid: string) =>
      annotationViewpoint(guid, annotation, partByGroup.get(annotation.group_id));
    if (topic) {
      addTopic(topic.id, annotationTopic(annotation, topic), viewpoint);
      continue;
    }
    addTopic(
      annotation.id,
      {
        type: ISSUE_TOPIC,
        status: annotation.resolved ? 'Closed' : 'Open',
        title: titleOf(annotation.text),
        labels: [],
        created: annotation.created_at,
        author,
        modified: annotation.updated_at,
        comments: annotationComment(annotation, author),
      },
      viewpoint,
    );
  }
  for (const view of content.views) {
    const topic = byView.get(view.id);
    const viewpoint = (guid: string) => savedViewViewpoint(guid, view);
    // x-ray and the level travel as labels; an imported topic had them already when they are not the defaults.
    const viewLabels = [
      ...(view.xray ? [XRAY_LABEL] : []),
      ...(view.level > 0 || !topic ? [levelLabel(view.level)] : []),
    ];
    if (topic) {
      const labels = [...topic.labels, ...viewLabels.filter((label) => !topic.labels.includes(label))];
      addTopic(topic.id, { ...fromTopic(topic), labels }, viewpoint);
      continue;
    }
    addTopic(
      view.id,
      {
        type: VIEW_TOPIC,
        status: 'Open',
        title: view.name,
        labels: viewLabels,
        created: view.created_at,
        author: view.author ?? UNNAMED_AUTHOR,
        comments: [],
      },
      viewpoint,
    );
  }
  // Unpinned notes: topics that became neither, written with no viewpoint, as they came.
  for (const topic of content.topics) {
    if (!topic.annotation_id && !topic.view_id) addTopic(topic.id, fromTopic(topic));
  }
  files.splice(1, 0, file('extensions.xml', extensions(used)));
  return writeZip(files, { deflate: true });
}
