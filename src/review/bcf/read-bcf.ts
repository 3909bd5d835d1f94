import { ApiError } from '../../http/api-error.ts';
import { fromBcf, type Vec3 } from './bcf-frame.ts';
import { child, childrenNamed, childText, parseXml, XmlError, type XmlNode } from './xml-read.ts';

/** A component a viewpoint names: by IFC GlobalId, by the authoring tool's id, or both. */
export interface BcfComponent {
  ifcGuid?: string;
  authoringToolId?: string;
}

/** What the import uses of a viewpoint, turned into the model's frame (metres, +Y up). */
export interface BcfViewpoint {
  selected: BcfComponent[];
  /** Whether components not listed in `exceptions` are visible. */
  defaultVisible: boolean;
  exceptions: BcfComponent[];
  /** The camera, its direction as written (a saved view's keeps its length: the distance to its target). */
  camera?: { eye: Vec3; direction: Vec3; up: Vec3; fov?: number };
  lines: { start: Vec3; end: Vec3 }[];
  clippingPlanes: { location: Vec3; direction: Vec3 }[];
}

/** A topic as the import reads it. */
export interface BcfTopic {
  guid: string;
  /** The folder it was read from, to name it in messages. */
  folder: string;
  type: string;
  status: string;
  title: string;
  labels: string[];
  author?: string;
  created?: string;
  modified?: string;
  /** The first comment's text, else the description, else the title. */
  text: string;
  /** The first viewpoint, undefined when the topic has none (or its file is missing or unreadable). */
  viewpoint?: BcfViewpoint;
}

/** A topic folder that could not be read, and why. */
export interface UnreadableTopic {
  folder: string;
  reason: string;
}

/** The BCF versions read; 2.x files lay out comments and viewpoints differently. */
const READ_VERSIONS = ['3.0'];

/** Reads the topics of an unzipped BCF; a missing or other-version `bcf.version` is a 400. */
export function readBcf(files: Map<string, string>): { topics: BcfTopic[]; unreadable: UnreadableTopic[] } {
  const version = files.get('bcf.version');
  if (version === undefined) throw new ApiError(400, 'The zip is not a BCF file: it has no bcf.version');
  let versionId: string | undefined;
  try {
    versionId = parseXml(version).attributes.VersionId;
  } catch (error) {
    throw new ApiError(400, `bcf.version is not valid XML: ${(error as Error).message}`);
  }
  if (!READ_VERSIONS.includes(versionId ?? '')) {
    throw new ApiError(400, `BCF ${versionId ?? '(no VersionId)'} is not read; export the topics as BCF 3.0`);
  }
  const topics: BcfTopic[] = [];
  const unreadable: UnreadableTopic[] = [];
  for (const [name, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const folder = /^([^/]+)\/markup\.bcf$/i.exec(name)?.[1];
    if (folder === undefined) continue;
    try {
      const topic = readTopic(folder, parseXml(text));
      const viewpointFile = topic.viewpointFile && files.get(`${folder}/${topic.viewpointFile}`);
      topics.push({
        ...topic.topic,
        viewpoint: viewpointFile ? readViewpoint(parseXml(viewpointFile)) : undefined,
      });
    } catch (error) {
      if (!(error instanceof XmlError || error instanceof BcfFormatError)) throw error;
      unreadable.push({ folder, reason: error.message });
    }
  }
  return { topics, unreadable };
}

class BcfFormatError extends Error {}

function readTopic(
  folder: string,
  markup: XmlNode,
): { topic: Omit<BcfTopic, 'viewpoint'>; viewpointFile?: string } {
  const topic = child(markup, 'Topic');
  if (markup.name !== 'Markup' || !topic) throw new BcfFormatError('markup.bcf has no Markup/Topic');
  const comments = childrenNamed(child(topic, 'Comments'), 'Comment');
  const title = childText(topic, 'Title') ?? '';
  const text =
    comments.map((comment) => child(comment, 'Comment')?.text.trim()).find((value) => value) ??
    childText(topic, 'Description') ??
    title;
  const viewpoints = childrenNamed(child(topic, 'Viewpoints'), 'ViewPoint');
  return {
    topic: {
      guid: topic.attributes.Guid ?? folder,
      folder,
      type: topic.attributes.TopicType ?? '',
      status: topic.attributes.TopicStatus ?? '',
      title,
      labels: childrenNamed(child(topic, 'Labels'), 'Label').map((label) => label.text.trim()),
      author: childText(topic, 'CreationAuthor'),
      created: childText(topic, 'CreationDate'),
      modified: childText(topic, 'ModifiedDate'),
      text,
    },
    viewpointFile: viewpoints.map((viewpoint) => childText(viewpoint, 'Viewpoint')).find(Boolean),
  };
}

/** A point or direction element in the model's frame, or undefined when it is missing or not three numbers. */
function vector(node: XmlNode | undefined): Vec3 | undefined {
  if (!node) return undefined;
  const values = ['X', 'Y', 'Z'].map((axis) => Number(childText(node, axis)));
  return values.every(Number.isFinite) ? fromBcf(values) : undefined;
}

function components(node: XmlNode | undefined): BcfComponent[] {
  return childrenNamed(node, 'Component').map((component) => ({
    ifcGuid: component.attributes.IfcGuid?.trim() || undefined,
    authoringToolId: childText(component, 'AuthoringToolId'),
  }));
}

function readViewpoint(info: XmlNode): BcfViewpoint {
  if (info.name !== 'VisualizationInfo') throw new BcfFormatError('the viewpoint has no VisualizationInfo');
  const parts = child(info, 'Components');
  const visibility = child(parts, 'Visibility');
  const cameraNode = child(info, 'PerspectiveCamera') ?? child(info, 'OrthogonalCamera');
  const eye = vector(child(cameraNode, 'CameraViewPoint'));
  const direction = vector(child(cameraNode, 'CameraDirection'));
  const up = vector(child(cameraNode, 'CameraUpVector'));
  const fov = Number(childText(cameraNode, 'FieldOfView'));
  return {
    selected: components(child(parts, 'Selection')),
    defaultVisible: ['true', '1'].includes(visibility?.attributes.DefaultVisibility ?? ''),
    exceptions: components(child(visibility, 'Exceptions')),
    camera:
      eye && direction && up
        ? { eye, direction, up, fov: Number.isFinite(fov) ? fov : undefined }
        : undefined,
    lines: childrenNamed(child(info, 'Lines'), 'Line').flatMap((line) => {
      const start = vector(child(line, 'StartPoint'));
      const end = vector(child(line, 'EndPoint'));
      return start && end ? [{ start, end }] : [];
    }),
    clippingPlanes: childrenNamed(child(info, 'ClippingPlanes'), 'ClippingPlane').flatMap((plane) => {
      const location = vector(child(plane, 'Location'));
      const direction = vector(child(plane, 'Direction'));
      return location && direction ? [{ location, direction }] : [];
    }),
  };
}
