/**
 * A scrolling list that keeps only the rows in (or near) its visible area in the DOM: rows of one fixed height,
 * placed absolutely inside a list as tall as all of them (the scroll extent), made when they scroll in and
 * removed when they scroll out. Each row's element is kept while it stays in the window, so a focused row keeps
 * its focus across updates.
 */

/** How the list makes and updates the element of one row, keyed by a stable id (the tree's node). */
export interface VirtualRowsOptions {
  /** Height of every row, in CSS pixels. */
  rowHeight: number;
  /** Rows kept in the DOM beyond each edge of the visible area, so a short scroll shows no blank. */
  overscan: number;
  /** The list element (its role and label are the caller's). */
  list: HTMLElement;
  /** Makes the element of the row whose key is `key`. */
  create: (key: number) => HTMLElement;
  /** Brings the element up to date for row `row`. */
  update: (element: HTMLElement, row: number, key: number) => void;
  /** A row to keep in the DOM even out of the window (the focused one), or -1. */
  pinned: () => number;
}

/** The scrolling box and what the owner calls when its rows change. */
export interface VirtualRows {
  /** The scrolling box, holding the list. */
  element: HTMLElement;
  /**
   * Takes a new list of row keys (after a filter, expand or collapse) and draws the window; `fresh` when the keys
   * name other things than before (a new tree), so no element is kept.
   */
  setKeys: (keys: Int32Array, fresh?: boolean) => void;
  /** Redraws the rows in the window (after a change of what they show). */
  refresh: () => void;
  /** Scrolls the box, not the page, just enough to show `row`, and draws it at once. */
  reveal: (row: number) => void;
  /** The element of the row whose key is `key`, when it is in the DOM. */
  elementOf: (key: number) => HTMLElement | undefined;
  /** How many rows fit in the box, for Page Up/Down. */
  pageRows: () => number;
  /** Stops watching the box's size. */
  dispose: () => void;
}

/** Used before the box is laid out (it is built before it is attached), so the first draw is not empty. */
const ASSUMED_HEIGHT = 320;

/** Builds the box with `list` inside it, class `className`. */
export function createVirtualRows(className: string, options: VirtualRowsOptions): VirtualRows {
  const { rowHeight, overscan, list } = options;
  const element = document.createElement('div');
  element.className = className;
  element.append(list);
  list.style.position = 'relative';
  let keys: Int32Array = new Int32Array(0);
  const shown = new Map<number, HTMLElement>();

  const draw = (): void => {
    const height = element.clientHeight || ASSUMED_HEIGHT;
    const first = Math.max(0, Math.floor(element.scrollTop / rowHeight) - overscan);
    const last = Math.min(keys.length - 1, Math.ceil((element.scrollTop + height) / rowHeight) + overscan);
    const pinned = options.pinned();
    const rows: number[] = [];
    if (pinned >= 0 && pinned < first) rows.push(pinned);
    for (let row = first; row <= last; row++) rows.push(row);
    if (pinned > last && pinned < keys.length) rows.push(pinned);

    const wanted = new Map<number, number>();
    for (const row of rows) wanted.set(keys[row]!, row);
    for (const [key, item] of shown) {
      if (wanted.has(key)) continue;
      item.remove();
      shown.delete(key);
    }
    // In row order, inserting new elements around the kept ones without moving those (moving blurs a focus).
    let cursor = list.firstElementChild;
    for (const [key, row] of wanted) {
      let item = shown.get(key);
      if (!item) {
        item = options.create(key);
        shown.set(key, item);
      }
      options.update(item, row, key);
      item.style.top = `${row * rowHeight}px`;
      if (item === cursor) cursor = cursor.nextElementSibling;
      else list.insertBefore(item, cursor);
    }
  };

  let queued = false;
  const drawSoon = (): void => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      draw();
    });
  };
  element.addEventListener('scroll', drawSoon, { passive: true });
  const resize = new ResizeObserver(drawSoon);
  resize.observe(element);

  return {
    element,
    setKeys: (next, fresh = false) => {
      keys = next;
      if (fresh) {
        for (const item of shown.values()) item.remove();
        shown.clear();
      }
      list.style.height = `${keys.length * rowHeight}px`;
      // A shorter list (a search's finds) brings the box back within it before the window is chosen.
      const bottom = Math.max(0, keys.length * rowHeight - (element.clientHeight || ASSUMED_HEIGHT));
      if (element.scrollTop > bottom) element.scrollTop = bottom;
      draw();
    },
    refresh: draw,
    reveal: (row) => {
      const top = row * rowHeight;
      const height = element.clientHeight || ASSUMED_HEIGHT;
      if (top < element.scrollTop) element.scrollTop = top;
      else if (top + rowHeight > element.scrollTop + height) element.scrollTop = top + rowHeight - height;
      draw();
    },
    elementOf: (key) => shown.get(key),
    pageRows: () => Math.max(1, Math.floor((element.clientHeight || ASSUMED_HEIGHT) / rowHeight) - 1),
    dispose: () => resize.disconnect(),
  };
}
