/** Controls of a model's animation clips: which clip, play/pause and a time slider to scrub. */
import { h, uid } from '../ui/dom.ts';
import type { AnimationPlayer } from '../viewer/animation-player.ts';

/** Slider steps across one clip. */
const STEPS = 1000;

/** Builds the controls for `player`; `changed` tells the view to draw (and keep drawing while playing). Returns the element and its clean-up. */
export function createAnimationControls(
  player: AnimationPlayer,
  changed: () => void,
): { element: HTMLElement; dispose: () => void } {
  const clipId = uid('clip');
  const timeId = uid('time');
  const clips = player.list();
  const clip = h(
    'select',
    { id: clipId },
    clips.map((info, index) => h('option', { value: index }, `${info.name} (${info.duration.toFixed(2)} s)`)),
  );
  const play = h('button', { type: 'button', class: 'play-button' }, 'Play');
  const time = h('input', { id: timeId, type: 'range', min: 0, max: STEPS, step: 1, value: 0 });
  const clock = h('output', { for: timeId, class: 'animation-time' }, '0.00 s');
  let frame = 0;

  const show = (): void => {
    play.textContent = player.isPlaying ? 'Pause' : 'Play';
    play.setAttribute('aria-pressed', String(player.isPlaying));
    const duration = player.duration || 1;
    time.value = String(Math.round((player.time / duration) * STEPS));
    clock.textContent = `${player.time.toFixed(2)} s`;
  };
  // Follows the clip while it plays; stops asking for frames when paused.
  const follow = (): void => {
    show();
    frame = player.isPlaying ? requestAnimationFrame(follow) : 0;
  };

  clip.addEventListener('change', () => {
    player.choose(Number(clip.value));
    changed();
    show();
  });
  play.addEventListener('click', () => {
    player.setPlaying(!player.isPlaying);
    changed();
    cancelAnimationFrame(frame);
    follow();
  });
  time.addEventListener('input', () => {
    player.setPlaying(false);
    player.seek((Number(time.value) / STEPS) * player.duration);
    changed();
    cancelAnimationFrame(frame);
    show();
  });

  const element = h(
    'div',
    { class: 'animation-controls', role: 'group', 'aria-label': 'Animation' },
    h('label', { for: clipId }, 'Clip'),
    clip,
    play,
    h('label', { for: timeId, class: 'visually-hidden' }, 'Animation time'),
    time,
    clock,
  );
  show();
  return { element, dispose: () => cancelAnimationFrame(frame) };
}
