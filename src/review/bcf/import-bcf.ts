import type { ModelPartRow } from '../../db/database.ts';
import type { NewAnnotation } from '../repository.ts';
import { MAX_ANNOTATION_TEXT, MAX_VIEW_NAME, MAX_VIEW_SECTIONS, type CreateViewBody } from '../schemas.ts';
import { addScaled, boundsCentre, dot, normalize, subtract, type Vec3 } from './bcf-frame.ts';
import type { BcfComponent, BcfTopic, BcfViewpoint } from './read-bcf.ts';
import { levelLabel, VIEW_TOPIC, XRAY_LABEL } from './write-bcf.ts';

/** Statuses read as resolved; any other is open. */
const RESOLVED_STATUSES = new Set(['closed', 'resolved', 'done']);

/** What one topic becomes. */
export type TopicImport =
  | { kind: 'annotation'; guid: string; annotation: Omit<NewAnnotation, 'model_id'> }
  | { kind: 'view'; guid: string; view: CreateViewBody; author: string | undefined; created_at?: string }
  | { kind: 'skipped'; guid: string; title: string; reason: string };

/** The part a component names, by IFC GlobalId or authoring tool id (both are group ids here). */
function findPart(
  parts: ReadonlyMap<string, ModelPartRow>,
  components: BcfComponent[],
): ModelPartRow | undefined {
  for (const { ifcGuid, authoringToolId } of components) {
    const part = (ifcGuid && parts.get(ifcGuid)) || (authoringToolId && parts.get(authoringToolId));
    if (part) return part;
  }
  return undefined;
}

/** An ISO date from a BCF dateTime, or undefined when it does not parse. */
function isoDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const time = new Date(value).getTime();
  return Number.isFinite(time) ? new Date(time).toISOString() : undefined;
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

function groupIdsOf(parts: ReadonlyMap<string, ModelPartRow>, components: BcfComponent[]): string[] {
  // A component of another model's part is kept by its id: the view simply does not find it.
  return components.flatMap(({ ifcGuid, authoringToolId }) => {
    const known = [ifcGuid, authoringToolId].find((id) => id !== undefined && parts.has(id));
    const id = known ?? authoringToolId ?? ifcGuid;
    return id ? [id] : [];
  });
}

function viewOf(
  topic: BcfTopic,
  viewpoint: BcfViewpoint,
  parts: ReadonlyMap<string, ModelPartRow>,
): TopicImport {
  const camera = viewpoint.camera!;
  const sections = viewpoint.clippingPlanes.slice(0, MAX_VIEW_SECTIONS).map(({ location, direction }) => {
    // BCF's direction points at the cut side; three.js cuts the side its normal points away from.
    const normal: Vec3 = [-direction[0], -direction[1], -direction[2]];
    return { normal, constant: -dot(normal, location) };
  });
  const level = [0, 1, 2].find((candidate) => topic.labels.includes(levelLabel(candidate))) ?? 0;
  const listed = groupIdsOf(parts, viewpoint.exceptions);
  return {
    kind: 'view',
    guid: topic.guid,
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

/**
 * What each topic becomes: a `View` topic with a camera becomes a saved view; any other topic becomes an
 * annotation on the part its viewpoint selects (or, lacking a selection, the first visible exception), matched
 * by IfcGuid or AuthoringToolId. A topic with no viewpoint, no camera for a view, or no part of this model is
 * skipped with its reason.
 */
export function planImport(topics: readonly BcfTopic[], modelParts: readonly ModelPartRow[]): TopicImport[] {
  const parts = new Map(modelParts.map((part) => [part.group_id, part]));
  return topics.map((topic): TopicImport => {
    const skip = (reason: string): TopicImport => ({
      kind: 'skipped',
      guid: topic.guid,
      title: topic.title,
      reason,
    });
    const viewpoint = topic.viewpoint;
    if (!viewpoint) return skip('the topic has no viewpoint');
    if (topic.type === VIEW_TOPIC) {
      const camera = viewpoint.camera;
      if (!camera) return skip('the view topic has no camera');
      if (!normalize(camera.direction) || !normalize(camera.up))
        return skip("the view's camera has no direction");
      return viewOf(topic, viewpoint, parts);
    }
    const candidates = [...viewpoint.selected, ...(viewpoint.defaultVisible ? [] : viewpoint.exceptions)];
    const part = findPart(parts, candidates);
    if (!part) {
      return skip(
        candidates.length === 0
          ? 'the viewpoint names no component'
          : 'no component of the viewpoint is a part of this model',
      );
    }
    const text = topic.text.slice(0, MAX_ANNOTATION_TEXT);
    if (!text) return skip('the topic has no text');
    const created = isoDate(topic.created);
    return {
      kind: 'annotation',
      guid: topic.guid,
      annotation: {
        group_id: part.group_id,
        ...pinOf(viewpoint, part),
        text,
        author: topic.author ?? null,
        resolved: RESOLVED_STATUSES.has(topic.status.toLowerCase()),
        created_at: created,
        updated_at: isoDate(topic.modified) ?? created,
      },
    };
  });
}
