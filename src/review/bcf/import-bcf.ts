import type { ModelPartRow } from '../../db/database.ts';
import type { NewAnnotation } from '../repository.ts';
import { MAX_ANNOTATION_TEXT, MAX_VIEW_NAME, MAX_VIEW_SECTIONS, type CreateViewBody } from '../schemas.ts';
import type { Topic } from '../topic-schemas.ts';
import { addScaled, boundsCentre, dot, normalize, subtract, type Vec3 } from './bcf-frame.ts';
import { SPATIAL_TYPES, type PartHierarchy } from './part-hierarchy.ts';
import type { BcfComponent, BcfTopic, BcfViewpoint } from './read-bcf.ts';
import { levelLabel, RESOLVED_STATUSES, VIEW_TOPIC, XRAY_LABEL } from './write-bcf.ts';

/** What a topic says beyond the annotation or view it becomes: a stored topic without its ids and links. */
export type TopicFields = Omit<Topic, 'id' | 'model_id' | 'annotation_id' | 'view_id'>;

/**
 * What one topic becomes: an annotation, a saved view, or (with neither) an unpinned note; each keeps its topic's
 * fields.
 */
export type TopicImport =
  | { kind: 'annotation'; guid: string; topic: TopicFields; annotation: Omit<NewAnnotation, 'model_id'> }
  | {
      kind: 'view';
      guid: string;
      topic: TopicFields;
      view: CreateViewBody;
      author: string | undefined;
      created_at?: string;
    }
  | { kind: 'note'; guid: string; topic: TopicFields };

/** The model's parts and node tree, to turn components into parts. */
interface ModelIndex {
  parts: ReadonlyMap<string, ModelPartRow>;
  hierarchy: PartHierarchy;
}

/**
 * The group ids a component stands for: itself when it is a part (by IfcGuid or AuthoringToolId, both group ids
 * here), else the parts under the object it names (an aggregate's, or a space's contents), else its own id, kept
 * so that a view keeps what it cannot find (another model's part). For a hidden component, a spatial object
 * (space, storey) stands for itself only: hiding a space in BCF hides the space, not what stands in it.
 */
function groupIdsOf(index: ModelIndex, component: BcfComponent, hiding: boolean): string[] {
  const ids = [component.ifcGuid, component.authoringToolId].filter((id): id is string => id !== undefined);
  const part = ids.find((id) => index.parts.has(id));
  if (part) return [part];
  for (const id of ids) {
    const object = index.hierarchy.get(id);
    if (object && !(hiding && object.type !== undefined && SPATIAL_TYPES.has(object.type)))
      return object.parts;
  }
  return ids.length > 0 ? [component.authoringToolId ?? component.ifcGuid!] : [];
}

/** Every group id the components stand for, each once, in order. */
function expandComponents(index: ModelIndex, components: BcfComponent[], hiding: boolean): string[] {
  const ids = new Set<string>();
  for (const component of components) for (const id of groupIdsOf(index, component, hiding)) ids.add(id);
  return [...ids];
}

/** The first part the components stand for (an aggregate's first part), or undefined. */
function findPart(index: ModelIndex, components: BcfComponent[]): ModelPartRow | undefined {
  for (const component of components) {
    for (const id of groupIdsOf(index, component, false)) {
      const part = index.parts.get(id);
      if (part) return part;
    }
  }
  return undefined;
}

/**
 * An ISO date from a BCF dateTime, or undefined when it does not parse or lies outside the years 1–9999 (ISO's
 * six-digit years are not dates either database reads back).
 */
function isoDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const time = new Date(value).getTime();
  if (!Number.isFinite(time)) return undefined;
  const iso = new Date(time).toISOString();
  return /^\d{4}-/.test(iso) && !iso.startsWith('0000') ? iso : undefined;
}

/**
 * The pin of a topic on a part: the start of the viewpoint's first line when there is one (what the export writes,
 * exact), else the point of the camera's line of sight nearest the part's centre when that lies ahead, else the
 * part's centre. The normal is the line's direction, else the reverse of the camera's.
 */
function pinOf(viewpoint: BcfViewpoint, part: ModelPartRow): { position: Vec3; normal: Vec3 } {
  const line = viewpoint.lines[0];
  const lineNormal = line && normalize(subtract(line.end, line.start));
  if (line && lineNormal) return { position: line.start, normal: lineNormal };
  const centre = boundsCentre(part.bounds);
  const camera = viewpoint.camera;
  const sight = camera && normalize(camera.direction);
  if (!camera || !sight) return { position: centre, normal: [0, 1, 0] };
  const ahead = dot(subtract(centre, camera.eye), sight);
  const normal: Vec3 = [-sight[0], -sight[1], -sight[2]];
  return { position: ahead > 0 ? addScaled(camera.eye, sight, ahead) : centre, normal };
}

function viewOf(topic: BcfTopic, viewpoint: BcfViewpoint, index: ModelIndex): TopicImport {
  const camera = viewpoint.camera!;
  const sections = viewpoint.clippingPlanes.slice(0, MAX_VIEW_SECTIONS).map(({ location, direction }) => {
    // BCF's direction points at the cut side; three.js cuts the side its normal points away from.
    const normal: Vec3 = [-direction[0], -direction[1], -direction[2]];
    return { normal, constant: -dot(normal, location) };
  });
  const level = [0, 1, 2].find((candidate) => topic.labels.includes(levelLabel(candidate))) ?? 0;
  const listed = expandComponents(index, viewpoint.exceptions, viewpoint.defaultVisible);
  return {
    kind: 'view',
    guid: topic.guid,
    topic: topicFields(topic),
    author: topic.author,
    created_at: isoDate(topic.created),
    view: {
      name: (topic.title || 'View').slice(0, MAX_VIEW_NAME),
      camera: {
        position: camera.eye,
        target: addScaled(camera.eye, camera.direction, 1),
        up: camera.up,
        fov: camera.fov === undefined ? 60 : Math.min(179, Math.max(1, camera.fov)),
      },
      hidden: viewpoint.defaultVisible ? listed : [],
      isolated: viewpoint.defaultVisible ? [] : listed,
      sections: sections.filter((plane) => normalize(plane.normal) !== undefined),
      xray: topic.labels.includes(XRAY_LABEL),
      level: level as CreateViewBody['level'],
    },
  };
}

/** The fields of a topic as stored: dates as ISO (a due date that does not parse is dropped), comments in order. */
function topicFields(topic: BcfTopic): TopicFields {
  const created = isoDate(topic.created) ?? new Date().toISOString();
  return {
    title: topic.title,
    topic_type: topic.type,
    status: topic.status,
    priority: topic.priority ?? null,
    labels: topic.labels.filter((label) => label !== ''),
    due_date: isoDate(topic.dueDate) ?? null,
    assigned_to: topic.assignedTo ?? null,
    stage: topic.stage ?? null,
    description: topic.description ?? null,
    author: topic.author ?? null,
    comments: topic.comments.map((comment) => ({
      guid: comment.guid,
      date: isoDate(comment.date) ?? created,
      author: comment.author,
      text: comment.text,
      modified_date: isoDate(comment.modifiedDate) ?? null,
      modified_author: comment.modifiedAuthor ?? null,
    })),
    created_at: created,
    modified_at: isoDate(topic.modified) ?? null,
    modified_author: topic.modifiedAuthor ?? null,
  };
}

function annotationOf(topic: BcfTopic, viewpoint: BcfViewpoint, part: ModelPartRow): TopicImport {
  const created = isoDate(topic.created);
  return {
    kind: 'annotation',
    guid: topic.guid,
    topic: topicFields(topic),
    annotation: {
      group_id: part.group_id,
      ...pinOf(viewpoint, part),
      // BCF requires a title, but a file may still leave everything blank; an annotation needs some text.
      text: (topic.text || 'Untitled topic').slice(0, MAX_ANNOTATION_TEXT),
      author: topic.author ?? null,
      resolved: RESOLVED_STATUSES.has(topic.status.toLowerCase()),
      created_at: created,
      updated_at: isoDate(topic.modified) ?? created,
    },
  };
}

/**
 * What each topic becomes; none is left out. A topic whose viewpoint selects a part (directly, or an aggregate or
 * space with parts under it; matched by IfcGuid or AuthoringToolId) becomes an annotation on it, unless it is a
 * `View` topic; a topic whose viewpoint has a camera becomes a saved view (visibility and clipping planes kept,
 * aggregates turned into their parts); a viewpoint with neither but a visible part pins an annotation on it; any
 * other topic (no viewpoint, or nothing of this model and no camera) is an unpinned note.
 */
export function planImport(
  topics: readonly BcfTopic[],
  modelParts: readonly ModelPartRow[],
  hierarchy: PartHierarchy = new Map(),
): TopicImport[] {
  const index: ModelIndex = { parts: new Map(modelParts.map((part) => [part.group_id, part])), hierarchy };
  return topics.map((topic): TopicImport => {
    const viewpoint = topic.viewpoint;
    if (!viewpoint) return { kind: 'note', guid: topic.guid, topic: topicFields(topic) };
    const selected = topic.type === VIEW_TOPIC ? undefined : findPart(index, viewpoint.selected);
    if (selected) return annotationOf(topic, viewpoint, selected);
    const camera = viewpoint.camera;
    if (camera && normalize(camera.direction) && normalize(camera.up)) return viewOf(topic, viewpoint, index);
    const visible = findPart(index, viewpoint.defaultVisible ? [] : viewpoint.exceptions);
    if (visible && topic.type !== VIEW_TOPIC) return annotationOf(topic, viewpoint, visible);
    return { kind: 'note', guid: topic.guid, topic: topicFields(topic) };
  });
}
