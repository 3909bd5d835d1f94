/**
 * Upload by picking or dropping files or a folder: byte progress first, then the conversion's own progress. A
 * lone file goes resumably: cut short (a reload, a lost network), it continues from where it stopped when the
 * same file is chosen again. A model with its resources (.gltf + .bin + images, .obj + .mtl + textures), chosen
 * or dropped together or as their folder, goes in one request and becomes one model.
 */
import { reprocessModel } from '../api/catalog-api.ts';
import type { Model } from '../api/types.ts';
import { uploadModel, uploadModelFiles, type UploadFields, type UploadPart } from '../api/upload-model.ts';
import { h, uid } from '../ui/dom.ts';
import { formatBytes } from '../ui/format.ts';
import {
  DEFAULT_UNIT,
  DEFAULT_UP_AXIS,
  frameSelect,
  UNIT_CHOICES,
  UP_AXIS_CHOICES,
} from '../ui/frame-choices.ts';
import { notifyError } from '../ui/notify.ts';
import { followModel } from './follow-model.ts';
import { acceptDrops, chooseFolder, isHidden } from './upload-sources.ts';

/** Model files and zips: each of these alone makes a model. */
const MODEL_EXTENSIONS = /\.(glb|gltf|obj|fbx|stl|ply|dae|3ds|step|stp|iges|igs|ifc|zip)$/i;
/** Resources a model names, offered by the picker next to the models; the server decides what it accepts. */
const RESOURCE_EXTENSIONS = '.bin,.mtl,.png,.jpg,.jpeg,.webp,.ktx2,.tga,.bmp,.gif,.tif,.tiff';
const ACCEPT = `.glb,.gltf,.obj,.fbx,.stl,.ply,.dae,.3ds,.step,.stp,.iges,.igs,.ifc,.zip,${RESOURCE_EXTENSIONS}`;

/** The panel and a function stopping its polls when the page is left. */
export interface UploadPanel {
  element: HTMLElement;
  dispose: () => void;
}

/** Builds the upload panel; `onModelChanged` runs when an upload is stored and when its conversion settles. */
export function createUploadPanel(onModelChanged: () => void): UploadPanel {
  const stops = new Set<() => void>();
  const nameId = uid('upload-name');
  const descriptionId = uid('upload-description');
  const fileId = uid('upload-file');
  const folderId = uid('upload-folder');
  const unitId = uid('upload-unit');
  const upId = uid('upload-up');
  const nameInput = h('input', {
    id: nameId,
    type: 'text',
    maxlength: 255,
    placeholder: 'Defaults to the file name',
  });
  const descriptionInput = h('input', { id: descriptionId, type: 'text', maxlength: 10000 });
  const unitSelect = frameSelect(unitId, UNIT_CHOICES, DEFAULT_UNIT);
  const upSelect = frameSelect(upId, UP_AXIS_CHOICES, DEFAULT_UP_AXIS);
  const fileInput = h('input', {
    id: fileId,
    type: 'file',
    accept: ACCEPT,
    multiple: true,
    class: 'visually-hidden',
  });
  const dropZone = h(
    'label',
    { for: fileId, class: 'drop-zone' },
    h('strong', {}, 'Choose model files'),
    h('span', {}, ' or drop them or their folder here'),
    h(
      'small',
      {},
      'glTF/GLB, OBJ, FBX, STL, PLY, DAE, 3DS, STEP, IGES, IFC or a .zip; a .gltf or .obj with its .bin, .mtl and textures',
    ),
  );
  // The folder picker is made on demand: one file input in the panel keeps "the" picker unambiguous.
  const folderButton = h(
    'button',
    { type: 'button', id: folderId, class: 'file-button', onclick: () => chooseFolder(start) },
    'Choose a folder',
  );
  const list = h('ul', { class: 'upload-list', 'aria-label': 'Uploads' });

  /** The form's fields; the unit and up axis only when they differ from what the server assumes anyway. */
  const fields = (): UploadFields => ({
    name: nameInput.value.trim(),
    description: descriptionInput.value.trim(),
    unit: unitSelect.value === DEFAULT_UNIT ? undefined : unitSelect.value,
    up: upSelect.value === DEFAULT_UP_AXIS ? undefined : upSelect.value,
  });

  /** Uploads one model: a lone file resumably, a model with its resources in one request. */
  const start = (parts: UploadPart[]): void => {
    const main = parts.find((part) => MODEL_EXTENSIONS.test(part.file.name)) ?? parts[0];
    const title = parts.length === 1 ? main.file.name : `${main.file.name} + ${parts.length - 1} files`;
    const bytes = parts.reduce((sum, part) => sum + part.file.size, 0);
    const item = createUploadItem(title, bytes, stops, onModelChanged);
    list.prepend(item.element);
    const progress = { onProgress: item.uploading, onResuming: item.resuming };
    const upload =
      parts.length === 1
        ? uploadModel(main.file, fields(), progress)
        : uploadModelFiles(parts, fields(), progress);
    upload
      .then((model) => {
        nameInput.value = '';
        descriptionInput.value = '';
        onModelChanged();
        item.follow(model);
      })
      .catch((error: unknown) => {
        item.uploadFailed(error);
        notifyError(error, `Upload of ${title}`);
      });
  };

  /**
   * Files chosen or dropped together: when every one is a model or a zip, each is its own upload (several models
   * at once); otherwise they are one model with its resources, and the server says if that is not so.
   */
  const startAll = (chosen: UploadPart[]): void => {
    const parts = chosen.filter((part) => !isHidden(part.relativePath));
    if (parts.length === 0) return;
    if (parts.every((part) => MODEL_EXTENSIONS.test(part.file.name))) {
      for (const part of parts) start([part]);
    } else {
      start(parts);
    }
  };

  fileInput.addEventListener('change', () => {
    startAll(Array.from(fileInput.files ?? [], (file) => ({ file, relativePath: file.name })));
    fileInput.value = '';
  });
  acceptDrops(dropZone, startAll, start);

  const element = h(
    'section',
    { class: 'upload-panel card', 'aria-labelledby': `${fileId}-heading` },
    h('h2', { id: `${fileId}-heading` }, 'Upload a model'),
    h(
      'div',
      { class: 'upload-fields' },
      h('div', { class: 'field' }, h('label', { for: nameId }, 'Name (optional)'), nameInput),
      h(
        'div',
        { class: 'field' },
        h('label', { for: descriptionId }, 'Description (optional)'),
        descriptionInput,
      ),
      h('div', { class: 'field' }, h('label', { for: unitId }, 'Unit, if the file has none'), unitSelect),
      h('div', { class: 'field' }, h('label', { for: upId }, 'Up axis, if the file has none'), upSelect),
      fileInput,
      dropZone,
      folderButton,
    ),
    list,
  );
  return {
    element,
    dispose: () => {
      for (const stop of stops) stop();
      stops.clear();
    },
  };
}

interface UploadItem {
  element: HTMLElement;
  uploading: (fraction: number) => void;
  resuming: () => void;
  uploadFailed: (error: unknown) => void;
  follow: (model: Model) => void;
}

function createUploadItem(
  title: string,
  bytes: number,
  stops: Set<() => void>,
  onModelChanged: () => void,
): UploadItem {
  const progressId = uid('upload-progress');
  const label = h('span', { class: 'upload-state' }, 'Uploading 0 %');
  const bar = h('progress', { id: progressId, max: 100, value: 0 });
  const actions = h('div', { class: 'upload-actions' });
  const element = h(
    'li',
    { class: 'upload-item', 'data-file': title },
    h('label', { for: progressId }, h('strong', {}, title), ` (${formatBytes(bytes)})`),
    bar,
    label,
    actions,
  );

  const show = (model: Model): void => {
    element.dataset.status = model.status;
    actions.replaceChildren();
    if (model.status === 'completed') {
      bar.value = 100;
      label.textContent = 'Converted';
      actions.append(h('a', { href: `#/models/${model.id}`, class: 'button' }, `Open ${model.name}`));
    } else if (model.status === 'failed') {
      bar.removeAttribute('value');
      bar.hidden = true;
      label.textContent = `Conversion failed: ${model.error ?? 'no reason given'}`;
      label.classList.add('error-text');
      actions.append(
        h('button', { type: 'button', onclick: () => reprocess(model) }, 'Reprocess'),
        h('a', { href: `#/models/${model.id}`, class: 'button' }, 'Details'),
      );
    } else {
      bar.hidden = false;
      label.classList.remove('error-text');
      bar.value = model.progress;
      label.textContent = `${model.status === 'pending' ? 'Waiting for conversion' : 'Converting'} ${Math.round(model.progress)} %`;
    }
  };

  const follow = (model: Model): void => {
    show(model);
    const stop = followModel(
      model.id,
      (next) => {
        show(next);
        if (next.status === 'completed' || next.status === 'failed') {
          stops.delete(stop);
          onModelChanged();
        }
      },
      (error) => {
        stops.delete(stop);
        label.textContent = 'Lost track of the conversion';
        notifyError(error, `Conversion of ${title}`);
      },
    );
    stops.add(stop);
  };

  const reprocess = (model: Model): void => {
    reprocessModel(model.id)
      .then((next) => {
        onModelChanged();
        follow(next);
      })
      .catch((error: unknown) => notifyError(error, `Reprocess ${model.name}`));
  };

  return {
    element,
    uploading: (fraction) => {
      bar.value = Math.round(fraction * 100);
      label.textContent = `Uploading ${Math.round(fraction * 100)} %`;
    },
    resuming: () => {
      element.dataset.resumed = 'true';
      label.textContent = 'Resuming an earlier upload of this file';
    },
    uploadFailed: (error) => {
      element.dataset.status = 'upload-failed';
      bar.hidden = true;
      label.classList.add('error-text');
      label.textContent = `Upload failed: ${error instanceof Error ? error.message : String(error)}`;
    },
    follow,
  };
}
