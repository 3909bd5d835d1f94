/**
 * The toolbar over the 3D view: fullscreen, a screenshot, the preset views, orthographic projection, feature edges,
 * the exploded view and the model's dimensions. Each control is a button (or the explode slider) named for what it
 * does, so a person with a screen reader, and a test, finds it by that name.
 */
import { Vector3 } from 'three';
import { h } from '../ui/dom.ts';
import { ExplodedView, MAX_EXPLODE } from '../view-tools/exploded-view.ts';
import { FeatureEdges } from '../view-tools/feature-edges.ts';
import { formatLength, modelUnit, type ViewedModel } from '../view-tools/model-lengths.ts';
import { PRESET_VIEWS } from '../view-tools/preset-views.ts';
import type { WorkspaceViewport } from './workspace-viewport.ts';
import { toggleButton } from './view-toolbar-button.ts';

/** What the toolbar acts on and where it reports. */
export interface ViewToolbarContext {
  model: ViewedModel;
  /** Each part's path in the assembly, by group id: the hierarchy the exploded view follows. */
  paths: ReadonlyMap<string, string>;
  view: WorkspaceViewport;
  /** The element shown fullscreen: the view with its toolbar. */
  stage: HTMLElement;
  /** Where readouts (dimensions, a distance) are shown over the view, a line each; empty ones take no room. */
  readout: HTMLElement;
  /** Further buttons for the bar (the part measures). */
  extra: HTMLElement[];
}

/** The toolbar and its clean-up. */
export interface ViewToolbar {
  element: HTMLElement;
  dispose: () => void;
}

/** Downloads `dataUrl` as `fileName`. */
function download(dataUrl: string, fileName: string): void {
  const link = h('a', { href: dataUrl, download: fileName });
  document.body.append(link);
  link.click();
  link.remove();
}

/** A file name from a model's name: letters, digits, dots and dashes. */
function fileStem(name: string): string {
  return name.replace(/\.[^.]+$/, '').replace(/[^\w.-]+/g, '-') || 'model';
}

/** Builds the toolbar of `context.view`. */
export function createViewToolbar(context: ViewToolbarContext): ViewToolbar {
  const { model, view, stage, readout } = context;
  const edges = new FeatureEdges();
  const exploded = new ExplodedView(context.paths);
  const centre = (): Vector3 => view.modelBounds.getCenter(new Vector3());
  const stopParts = view.onPartsChanged(() => {
    edges.update(view.parts);
    if (exploded.amount > 0) exploded.update(view.parts, centre());
  });

  const fullscreen = h(
    'button',
    {
      type: 'button',
      title: 'Show the view on the whole screen (Esc leaves)',
      onclick: () => {
        if (document.fullscreenElement) void document.exitFullscreen();
        else void stage.requestFullscreen();
      },
    },
    'Fullscreen',
  );
  const screenshot = h(
    'button',
    {
      type: 'button',
      title: 'Download a PNG of the view as shown',
      onclick: () =>
        download(view.snapshot(Math.max(1, 2 / window.devicePixelRatio)), `${fileStem(model.name)}.png`),
    },
    'Screenshot',
  );
  const presets = PRESET_VIEWS.map(({ name, direction }) =>
    h(
      'button',
      { type: 'button', title: `${name} view of the whole model`, onclick: () => view.viewFrom(direction) },
      name,
    ),
  );
  const orthographic = toggleButton(
    'Orthographic',
    (on) => {
      view.setOrthographic(on);
      stage.dataset.projection = on ? 'orthographic' : 'perspective';
    },
    'Parallel projection: sizes do not shrink with depth',
  );
  const edgesButton = toggleButton(
    'Edges',
    (on) => {
      edges.set(view.parts, on);
      view.requestRender();
    },
    'Draw the edges where faces meet at a sharp angle',
  );
  const explode = h('input', {
    type: 'range',
    min: 0,
    max: MAX_EXPLODE,
    step: 0.05,
    value: 0,
    'aria-label': 'Explode',
    title: 'Move the parts apart from the model’s centre: the assemblies first, then the parts within them',
  });
  explode.addEventListener('input', () => {
    exploded.set(view.parts, centre(), Number(explode.value));
    stage.dataset.explode = explode.value;
    view.partsMoved();
  });
  const unit = modelUnit(model);
  const dimensionsLine = h('div', { class: 'readout-line' });
  readout.append(dimensionsLine);
  const dimensions = toggleButton(
    'Dimensions',
    (on) => {
      if (!on) {
        dimensionsLine.replaceChildren();
        return;
      }
      const size = view.modelBounds.getSize(new Vector3());
      const lengths = [size.x, size.y, size.z].map((metres) => formatLength(metres, unit));
      dimensionsLine.replaceChildren(
        h('strong', {}, 'Dimensions '),
        h('span', { class: 'model-dimensions', 'data-unit': unit }, lengths.join(' × ')),
        h('small', {}, ' (width × height × depth of the bounding box)'),
      );
    },
    'The bounding box’s width, height and depth in the model’s unit',
  );
  const element = h(
    'div',
    { class: 'view-toolbar', role: 'toolbar', 'aria-label': 'View' },
    fullscreen,
    screenshot,
    h('span', { class: 'toolbar-group', role: 'group', 'aria-label': 'Preset views' }, ...presets),
    orthographic,
    edgesButton,
    h('label', { class: 'explode-slider' }, h('span', { 'aria-hidden': 'true' }, 'Explode'), explode),
    dimensions,
    ...context.extra,
  );
  return {
    element,
    dispose: () => {
      stopParts();
      edges.dispose();
    },
  };
}
