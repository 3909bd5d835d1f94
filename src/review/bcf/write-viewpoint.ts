import type { ModelPartRow } from '../../db/database.ts';
import type { Annotation, SavedView } from '../schemas.ts';
import { addScaled, boundsDiagonal, dot, normalize, subtract, toBcf, type Vec3 } from './bcf-frame.ts';
import { el, leaf, type XmlElement } from './xml-write.ts';

/** An IFC GlobalId: 22 characters of IFC's base-64 alphabet (what BCF's `IfcGuid` attribute takes). */
export const IFC_GUID = /^[0-9A-Za-z_$]{22}$/;
/** What BCF calls the system that wrote a component's id. */
export const ORIGINATING_SYSTEM = 'Vitrine';
/** The width/height ratio written with every camera: the views keep no window size, and 16:9 is the common one. */
export const ASPECT_RATIO = 16 / 9;
/** Vertical field of view of the camera looking at a pin, in degrees. */
export const PIN_FIELD_OF_VIEW = 60;
/** Length of the line drawn from a pin along its normal, in metres: it carries the pin's exact place and normal. */
export const PIN_LINE_LENGTH = 0.1;

const point = (name: string, [x, y, z]: Vec3) => el(name, {}, leaf('X', x), leaf('Y', y), leaf('Z', z));

/**
 * A part as a BCF component: its group id as `IfcGuid` when it is an IFC GlobalId (IFC parts keep theirs as group
 * id), and always as `AuthoringToolId`, which other tools echo back and the import matches too.
 */
export function component(groupId: string): XmlElement {
  return el(
    'Component',
    { IfcGuid: IFC_GUID.test(groupId) ? groupId : undefined },
    leaf('OriginatingSystem', ORIGINATING_SYSTEM),
    leaf('AuthoringToolId', groupId),
  );
}

function perspectiveCamera(eye: Vec3, direction: Vec3, up: Vec3, fov: number): XmlElement {
  return el(
    'PerspectiveCamera',
    {},
    point('CameraViewPoint', toBcf(eye)),
    point('CameraDirection', toBcf(direction)),
    point('CameraUpVector', toBcf(up)),
    leaf('FieldOfView', fov),
    leaf('AspectRatio', ASPECT_RATIO),
  );
}

/**
 * The viewpoint of an annotation: its part selected, a camera on the pin's normal looking at the pin from twice
 * the part's size (at least a metre), and a short line from the pin along its normal, which holds the exact pin.
 */
export function annotationViewpoint(
  guid: string,
  annotation: Annotation,
  part: ModelPartRow | undefined,
): XmlElement {
  const normal = normalize(annotation.normal) ?? [0, 1, 0];
  const distance = Math.max(1, 2 * (part ? boundsDiagonal(part.bounds) : 0));
  const eye = addScaled(annotation.position, normal, distance);
  // Screen up is world up unless the camera looks (almost) straight down or up.
  const up: Vec3 = Math.abs(normal[1]) > 0.99 ? [0, 0, -Math.sign(normal[1])] : [0, 1, 0];
  return el(
    'VisualizationInfo',
    { Guid: guid },
    el(
      'Components',
      {},
      el('Selection', {}, component(annotation.group_id)),
      el('Visibility', { DefaultVisibility: true }),
    ),
    perspectiveCamera(eye, [-normal[0], -normal[1], -normal[2]], up, PIN_FIELD_OF_VIEW),
    el(
      'Lines',
      {},
      el(
        'Line',
        {},
        point('StartPoint', toBcf(annotation.position)),
        point('EndPoint', toBcf(addScaled(annotation.position, normal, PIN_LINE_LENGTH))),
      ),
    ),
  );
}

/**
 * The viewpoint of a saved view. The camera's direction keeps its length (target − position), so the orbit
 * target comes back on import; isolated parts are the exceptions to an invisible default, else the hidden ones
 * to a visible default. A section plane `normal·p + constant = 0` (three.js, cutting the negative side) becomes a
 * clipping plane through its nearest point to the origin whose direction points at the cut side, as BCF has it.
 */
export function savedViewViewpoint(guid: string, view: SavedView): XmlElement {
  const { camera } = view;
  const isolating = view.isolated.length > 0;
  const exceptions = isolating ? view.isolated : view.hidden;
  return el(
    'VisualizationInfo',
    { Guid: guid },
    el(
      'Components',
      {},
      el(
        'Visibility',
        { DefaultVisibility: !isolating },
        exceptions.length > 0 ? el('Exceptions', {}, ...exceptions.map(component)) : undefined,
      ),
    ),
    perspectiveCamera(camera.position, subtract(camera.target, camera.position), camera.up, camera.fov),
    view.sections.length > 0
      ? el(
          'ClippingPlanes',
          {},
          ...view.sections.map(({ normal, constant }) => {
            const onPlane = addScaled([0, 0, 0], normal, -constant / dot(normal, normal));
            return el(
              'ClippingPlane',
              {},
              point('Location', toBcf(onPlane)),
              point('Direction', toBcf([-normal[0], -normal[1], -normal[2]])),
            );
          }),
        )
      : undefined,
  );
}
