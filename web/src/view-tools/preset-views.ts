/** The named views of the toolbar: the directions the camera looks from, towards the model's centre. */
import { Vector3 } from 'three';

/** A preset view's name and where the camera stands relative to the model (the viewer's frame is +Y up, +Z front). */
export interface PresetView {
  name: 'Front' | 'Top' | 'Right' | 'Iso';
  direction: Vector3;
}

/** Front, top, right and isometric; the top view leans a hair towards the front so the orbit keeps its bearings. */
export const PRESET_VIEWS: readonly PresetView[] = [
  { name: 'Front', direction: new Vector3(0, 0, 1) },
  { name: 'Top', direction: new Vector3(0, 1, 1e-4).normalize() },
  { name: 'Right', direction: new Vector3(1, 0, 0) },
  { name: 'Iso', direction: new Vector3(1, 1, 1).normalize() },
];
