/**
 * Files dropped on the view of a model become its next version: the drop is handed to the Versions card, which
 * shows the bytes' progress and then the conversion. Folders are not taken here (the catalog's upload takes them).
 */

/** Class the view's frame carries while files are dragged over it. */
const DRAG_CLASS = 'drag-over';

/** True when a drag carries files (not text or a link dragged from the page). */
const carriesFiles = (event: DragEvent): boolean =>
  Array.from(event.dataTransfer?.types ?? []).includes('Files');

/**
 * Makes `frame` take dropped files and hand them to `send`, while `allowed()` (a read token may not make versions:
 * its drops are left to the browser's default, which does nothing for a page). Returns the undo.
 */
export function acceptVersionDrops(
  frame: HTMLElement,
  send: (files: File[]) => void,
  allowed: () => boolean,
): () => void {
  const over = (event: DragEvent): void => {
    if (!allowed() || !carriesFiles(event)) return;
    // Without preventDefault the browser would not offer the drop (and would open the file instead).
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
    frame.classList.add(DRAG_CLASS);
  };
  const leave = (event: DragEvent): void => {
    // Leaving a child for another child of the frame is no leaving.
    if (event.relatedTarget instanceof Node && frame.contains(event.relatedTarget)) return;
    frame.classList.remove(DRAG_CLASS);
  };
  const drop = (event: DragEvent): void => {
    frame.classList.remove(DRAG_CLASS);
    if (!allowed() || !carriesFiles(event)) return;
    event.preventDefault();
    const files = Array.from(event.dataTransfer?.files ?? []);
    if (files.length > 0) send(files);
  };
  frame.addEventListener('dragover', over);
  frame.addEventListener('dragleave', leave);
  frame.addEventListener('drop', drop);
  return () => {
    frame.removeEventListener('dragover', over);
    frame.removeEventListener('dragleave', leave);
    frame.removeEventListener('drop', drop);
    frame.classList.remove(DRAG_CLASS);
  };
}
