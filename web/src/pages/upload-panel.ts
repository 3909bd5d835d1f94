/**
 * Upload by picking or dropping a file: byte progress first, then the conversion's own progress. An upload cut
 * short (a reload, a lost network) continues from where it stopped when the same file is chosen again.
 */
import { reprocessModel } from '../api/catalog-api.ts';
import type { Model } from '../api/types.ts';
import { uploadModel } from '../api/upload-model.ts';
import { h, uid } from '../ui/dom.ts';
import { formatBytes } from '../ui/format.ts';
import { notifyError } from '../ui/notify.ts';
import { followModel } from './follow-model.ts';

/** File types offered by the picker; the server decides what it accepts. */
const ACCEPT = '.glb,.gltf,.obj,.fbx,.stl,.ply,.dae,.3ds,.step,.stp,.iges,.igs,.ifc,.zip';

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
  const nameInput = h('input', {
    id: nameId,
    type: 'text',
    maxlength: 255,
    placeholder: 'Defaults to the file name',
  });
  const descriptionInput = h('input', { id: descriptionId, type: 'text', maxlength: 10000 });
  const fileInput = h('input', { id: fileId, type: 'file', accept: ACCEPT, class: 'visually-hidden' });
  const dropZone = h(
    'label',
    { for: fileId, class: 'drop-zone' },
    h('strong', {}, 'Choose a model file'),
    h('span', {}, ' or drop it here'),
    h('small', {}, 'glTF/GLB, OBJ, FBX, STL, PLY, DAE, 3DS, STEP, IGES, IFC or a .zip'),
  );
  const list = h('ul', { class: 'upload-list', 'aria-label': 'Uploads' });

  const start = (file: File): void => {
    const item = createUploadItem(file, stops, onModelChanged);
    list.prepend(item.element);
    uploadModel(
      file,
      { name: nameInput.value.trim(), description: descriptionInput.value.trim() },
      { onProgress: item.uploading, onResuming: item.resuming },
    )
      .then((model) => {
        nameInput.value = '';
        descriptionInput.value = '';
        onModelChanged();
        item.follow(model);
      })
      .catch((error: unknown) => {
        item.uploadFailed(error);
        notifyError(error, `Upload of ${file.name}`);
      });
  };

  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (file) start(file);
    fileInput.value = '';
  });
  dropZone.addEventListener('dragover', (event) => {
    event.preventDefault();
    dropZone.classList.add('drag-over');
  });
  dropZone.addEventListener('dragleave', () => dropZone.classList.remove('drag-over'));
  dropZone.addEventListener('drop', (event) => {
    event.preventDefault();
    dropZone.classList.remove('drag-over');
    for (const file of Array.from(event.dataTransfer?.files ?? [])) start(file);
  });

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
      fileInput,
      dropZone,
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

function createUploadItem(file: File, stops: Set<() => void>, onModelChanged: () => void): UploadItem {
  const progressId = uid('upload-progress');
  const label = h('span', { class: 'upload-state' }, 'Uploading 0 %');
  const bar = h('progress', { id: progressId, max: 100, value: 0 });
  const actions = h('div', { class: 'upload-actions' });
  const element = h(
    'li',
    { class: 'upload-item', 'data-file': file.name },
    h('label', { for: progressId }, h('strong', {}, file.name), ` (${formatBytes(file.size)})`),
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
        notifyError(error, `Conversion of ${file.name}`);
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
