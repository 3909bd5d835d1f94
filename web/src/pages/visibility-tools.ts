/** Buttons that act on the selected parts: isolate, hide, show all, and x-ray (everything else ghosted). */
import { h } from '../ui/dom.ts';

/** What the buttons change; the workspace owns the state. */
export interface VisibilityActions {
  isolate: () => void;
  hide: () => void;
  showAll: () => void;
  setXray: (on: boolean) => void;
}

/** The tool row and an update for when the selection or the hidden set changes. */
export interface VisibilityTools {
  element: HTMLElement;
  update: (selected: number, hidden: number) => void;
}

/** Builds the row; buttons that would do nothing are disabled. */
export function createVisibilityTools(actions: VisibilityActions): VisibilityTools {
  const isolate = h('button', { type: 'button', onclick: actions.isolate }, 'Isolate');
  const hide = h('button', { type: 'button', onclick: actions.hide }, 'Hide');
  const showAll = h('button', { type: 'button', onclick: actions.showAll }, 'Show all');
  const xray = h('button', { type: 'button', 'aria-pressed': 'false', 'data-xray': '' }, 'X-ray');
  xray.addEventListener('click', () => {
    const on = xray.getAttribute('aria-pressed') !== 'true';
    xray.setAttribute('aria-pressed', String(on));
    actions.setXray(on);
  });
  const element = h(
    'div',
    { class: 'button-row visibility-tools', role: 'group', 'aria-label': 'Selected parts' },
    isolate,
    hide,
    showAll,
    xray,
  );
  return {
    element,
    update: (selected, hidden) => {
      isolate.disabled = selected === 0;
      hide.disabled = selected === 0;
      showAll.disabled = hidden === 0;
    },
  };
}

/** Whether the x-ray button in a row built by {@link createVisibilityTools} is on. */
export function xrayPressed(tools: HTMLElement): boolean {
  return tools.querySelector('[data-xray]')?.getAttribute('aria-pressed') === 'true';
}

/** Turns the x-ray button of the row on or off as a click would, so the view follows. */
export function pressXray(tools: HTMLElement, on: boolean): void {
  const button = tools.querySelector<HTMLButtonElement>('[data-xray]');
  if (button && xrayPressed(tools) !== on) button.click();
}
