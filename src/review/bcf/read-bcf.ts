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

/** A comment of a topic, as written. */
export interface BcfComment {
  guid: string;
  date: string;
  author: string;
  /** Empty when the comment has no text (it may only point at a viewpoint). */
  text: string;
  modifiedDate?: string;
  modifiedAuthor?: string;
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
  modifiedAuthor?: string;
  priority?: string;
  dueDate?: string;
  assignedTo?: string;
  stage?: string;
  description?: string;
  comments: BcfComment[];
  /** The first comment's text, else the description, else the title. */
  text: string;
  /** The first viewpoint, undefined when the topic has none (or its file is missing or unreadable). */
  viewpoint?: BcfViewpoint;
}

/** The BCF versions read; 2.x files lay out comments and viewpoints differently. */
const READ_VERSIONS = ['3.0'];

/**
 * Reads the topics of an unzipped BCF. A missing or other-version `bcf.version` is a 400, and so is a markup or
 * viewpoint file that is not well-formed XML (naming it): nothing of such a file is imported, rather than some of
 * its topics.
 */
export function readBcf(files: Map<string, string>): BcfTopic[] {
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
  for (const [name, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const folder = /^([^/]+)\/markup\.bcf$/i.exec(name)?.[1];
    if (folder === undefined) continue;
    const topic = readFile(name, () => readTopic(folder, parseXml(text)));
    const viewpointName = topic.viewpointFile && `${folder}/${topic.viewpointFile}`;
    const viewpointFile = viewpointName ? files.get(viewpointName) : undefined;
    topics.push({
      ...topic.topic,
      viewpoint:
        viewpointName && viewpointFile
          ? readFile(viewpointName, () => readViewpoint(parseXml(viewpointFile)))
          : undefined,
    });
  }
  return topics;
}

/** What `read` makes of one file of the zip; a file that is not well-formed or not BCF is a 400 naming it. */
function readFile<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof XmlError || error instanceof BcfFormatError)) throw error;
    throw new ApiError(400, `${name} cannot be read: ${error.message}`);
  }
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
  const author = childText(topic, 'CreationAuthor');
  const created = childText(topic, 'CreationDate');
  return {
    topic: {
      guid: topic.attributes.Guid ?? folder,
      folder,
      type: topic.attributes.TopicType ?? '',
      status: topic.attributes.TopicStatus ?? '',
      title,
      labels: childrenNamed(child(topic, 'Labels'), 'Label').map((label) => label.text.trim()),
      author,
      created,
      modified: childText(topic, 'ModifiedDate'),
      modifiedAuthor: childText(topic, 'ModifiedAuthor'),
      priority: childText(topic, 'Priority'),
      dueDate: childText(topic, 'DueDate'),
      assignedTo: childText(topic, 'AssignedTo'),
      stage: childText(topic, 'Stage'),
      description: childText(topic, 'Description'),
      // Every comment, those with no text too: a comment may only point at a viewpoint.
      comments: comments.map((comment, index) => ({
        guid: comment.attributes.Guid ?? `${folder}-${index}`,
        date: childText(comment, 'Date') ?? created ?? '',
        author: childText(comment, 'Author') ?? author ?? '',
        text: child(comment, 'Comment')?.text.trim() ?? '',
        modifiedDate: childText(comment, 'ModifiedDate'),
        modifiedAuthor: childText(comment, 'ModifiedAuthor'),
      })),
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
