/** Where the upload panel's files come from besides its file input: a folder picker and drops on its drop zone. */
import type { UploadPart } from '../api/upload-model.ts';
import { h } from '../ui/dom.ts';
import { notifyError } from '../ui/notify.ts';

/** Opens the browser's folder picker; every file of the chosen folder is one model with its resources. */
export function chooseFolder(start: (parts: UploadPart[]) => void): void {
  const folderInput = h('input', { type: 'file', class: 'visually-hidden' });
  folderInput.webkitdirectory = true;
  folderInput.addEventListener('change', () => {
    const parts = Array.from(folderInput.files ?? [], (file) => ({
      file,
      relativePath: file.webkitRelativePath || file.name,
    })).filter((part) => !isHidden(part.relativePath));
    if (parts.length > 0) start(parts);
  });
  folderInput.click();
}

/**
 * Makes `dropZone` take dropped files and folders: loose files go to `startAll` (several models, or one with its
 * resources), a dropped folder's files to `start` as one model.
 */
export function acceptDrops(
  dropZone: HTMLElement,
  startAll: (chosen: UploadPart[]) => void,
  start: (parts: UploadPart[]) => void,
): void {
  dropZone.addEventListener('dragover', (event) => {
    event.preventDefault();
    dropZone.classList.add('drag-over');
  });
  dropZone.addEventListener('dragleave', () => dropZone.classList.remove('drag-over'));
  dropZone.addEventListener('drop', (event) => {
    event.preventDefault();
    dropZone.classList.remove('drag-over');
    const transfer = event.dataTransfer;
    if (!transfer) return;
    const entries = Array.from(transfer.items, (item) => item.webkitGetAsEntry()).filter(
      (entry): entry is FileSystemEntry => entry !== null,
    );
    if (!entries.some((entry) => entry.isDirectory)) {
      startAll(Array.from(transfer.files, (file) => ({ file, relativePath: file.name })));
      return;
    }
    // A dropped folder is read entry by entry, after the event (its entries stay readable).
    filesOfEntries(entries)
      .then((parts) => {
        const visible = parts.filter((part) => !isHidden(part.relativePath));
        if (visible.length > 0) start(visible);
      })
      .catch((error: unknown) => notifyError(error, 'Reading the dropped folder'));
  });
}

/** Files a folder carries that are no part of a model: hidden ones (.DS_Store, .git/…) and macOS's __MACOSX copies. */
export function isHidden(relativePath: string): boolean {
  const segments = relativePath.split('/');
  return segments[0] === '__MACOSX' || segments.some((segment) => segment.startsWith('.'));
}

/** Every file under dropped entries, with its path from the dropped item (`Box/textures/a.png`). */
async function filesOfEntries(entries: FileSystemEntry[]): Promise<UploadPart[]> {
  const parts: UploadPart[] = [];
  const visit = async (entry: FileSystemEntry): Promise<void> => {
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) =>
        (entry as FileSystemFileEntry).file(resolve, reject),
      );
      parts.push({ file, relativePath: entry.fullPath.replace(/^\/+/, '') });
      return;
    }
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    // readEntries hands out a folder in batches (100 in Chromium) until it returns none.
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
        reader.readEntries(resolve, reject),
      );
      if (batch.length === 0) break;
      for (const child of batch) await visit(child);
    }
  };
  for (const entry of entries) await visit(entry);
  return parts;
}
