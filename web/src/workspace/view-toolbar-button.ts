/** The toolbar's toggle buttons. */
import { h } from '../ui/dom.ts';

/** A toggle button carrying its state in `aria-pressed`; `onChange` hears each new state. */
export function toggleButton(
  label: string,
  onChange: (on: boolean) => void,
  title = label,
): HTMLButtonElement {
  const button = h('button', { type: 'button', 'aria-pressed': 'false', title }, label);
  button.addEventListener('click', () => {
    const on = button.getAttribute('aria-pressed') !== 'true';
    button.setAttribute('aria-pressed', String(on));
    onChange(on);
  });
  return button;
}
