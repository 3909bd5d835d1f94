/** Clicks on the view told from drags: a press that moves before its release orbits the camera instead. */

/** A pointer that moved further than this between down and up was orbiting, not clicking. */
const CLICK_TOLERANCE_PX = 5;

/** Calls `onClick` for each primary-button press released within a few pixels of where it began. */
export function listenForClicks(element: HTMLElement, onClick: (event: PointerEvent) => void): void {
  let down: { x: number; y: number } | null = null;
  element.addEventListener('pointerdown', (event) => {
    down = event.button === 0 ? { x: event.clientX, y: event.clientY } : null;
  });
  element.addEventListener('pointerup', (event) => {
    const start = down;
    down = null;
    if (start && Math.hypot(event.clientX - start.x, event.clientY - start.y) <= CLICK_TOLERANCE_PX)
      onClick(event);
  });
}
