/** Keeps drop-down panels inside the window, and scrolls a form into sight without moving the page. */

/** Gap kept between a panel and the window's edge, in CSS pixels. */
export const VIEWPORT_MARGIN = 8;

/**
 * How far to move a box spanning `left`–`right` sideways so it lies within `0`–`viewportWidth` less `margin` on
 * each side. A box wider than the room left is aligned on the left edge (its width is capped in CSS).
 */
export function horizontalShift(
  left: number,
  right: number,
  viewportWidth: number,
  margin = VIEWPORT_MARGIN,
): number {
  let shift = 0;
  if (right > viewportWidth - margin) shift = viewportWidth - margin - right;
  if (left + shift < margin) shift = margin - left;
  return shift;
}

/** Moves `panel` (laid out at its CSS place) back inside the window's width with a `translate`. */
export function keepInViewport(panel: HTMLElement): void {
  panel.style.translate = '';
  const box = panel.getBoundingClientRect();
  // clientWidth leaves out a vertical scroll bar, which innerWidth counts.
  const shift = horizontalShift(box.left, box.right, document.documentElement.clientWidth);
  panel.style.translate = shift === 0 ? '' : `${Math.round(shift)}px 0`;
}

/**
 * Makes a `<details>` a drop-down: its `panel` is placed inside the window each time it opens and when the window
 * is resized, and a click outside or Esc closes it. Returns the clean-up.
 */
export function dropDown(details: HTMLDetailsElement, panel: HTMLElement): () => void {
  const place = (): void => {
    if (details.open) keepInViewport(panel);
  };
  const closeOutside = (event: Event): void => {
    if (details.open && !details.contains(event.target as Node)) details.open = false;
  };
  const closeOnEscape = (event: KeyboardEvent): void => {
    if (event.key !== 'Escape' || !details.open) return;
    // Esc here belongs to the menu, not to the page's selection.
    event.preventDefault();
    details.open = false;
    details.querySelector('summary')?.focus();
  };
  details.addEventListener('toggle', place);
  details.addEventListener('keydown', closeOnEscape);
  window.addEventListener('resize', place);
  document.addEventListener('pointerdown', closeOutside);
  return () => {
    window.removeEventListener('resize', place);
    document.removeEventListener('pointerdown', closeOutside);
  };
}

/**
 * Scrolls `element`'s top to `margin` px below the top of its nearest scrolling ancestor (the window when there is
 * none), scrolling nothing else: `scrollIntoView` would also move every outer scroller, the page included.
 */
export function scrollToTop(element: HTMLElement, margin: number): void {
  for (let box = element.parentElement; box; box = box.parentElement) {
    const overflow = getComputedStyle(box).overflowY;
    if ((overflow === 'auto' || overflow === 'scroll') && box.scrollHeight > box.clientHeight) {
      box.scrollTop += element.getBoundingClientRect().top - box.getBoundingClientRect().top - margin;
      return;
    }
  }
  window.scrollBy({ top: element.getBoundingClientRect().top - margin, behavior: 'instant' });
}
