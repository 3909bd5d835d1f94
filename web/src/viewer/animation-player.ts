/** Plays the animation clips a glTF carries: one clip at a time, play/pause, and a time to scrub to. */
import { AnimationMixer, LoopRepeat } from 'three';
import type { AnimationAction, AnimationClip, Object3D } from 'three';

/** A clip as the controls list it. */
export interface ClipInfo {
  name: string;
  duration: number;
}

/** Drives an {@link AnimationMixer} for one loaded scene; the view advances it every frame while it plays. */
export class AnimationPlayer {
  private readonly mixer: AnimationMixer;
  private action: AnimationAction | null = null;
  private playing = false;

  constructor(
    root: Object3D,
    private readonly clips: AnimationClip[],
  ) {
    this.mixer = new AnimationMixer(root);
    if (clips.length > 0) this.choose(0);
  }

  /** Every clip, in file order. */
  list(): ClipInfo[] {
    return this.clips.map((clip, index) => ({
      name: clip.name || `Clip ${index + 1}`,
      duration: clip.duration,
    }));
  }

  /** True while time advances. */
  get isPlaying(): boolean {
    return this.playing;
  }

  /** Seconds into the current clip. */
  get time(): number {
    return this.action?.time ?? 0;
  }

  /** Length of the current clip in seconds. */
  get duration(): number {
    return this.action?.getClip().duration ?? 0;
  }

  /** Switches to clip `index`, at its start, keeping play or pause. */
  choose(index: number): void {
    const clip = this.clips[index];
    if (!clip) return;
    this.action?.stop();
    this.action = this.mixer.clipAction(clip);
    this.action.setLoop(LoopRepeat, Infinity);
    this.action.play();
    this.action.paused = !this.playing;
    this.seek(0);
  }

  /** Starts or stops time. */
  setPlaying(playing: boolean): void {
    this.playing = playing && this.action !== null;
    if (this.action) this.action.paused = !this.playing;
  }

  /** Poses the scene at `seconds` into the current clip. */
  seek(seconds: number): void {
    if (!this.action) return;
    this.action.time = Math.min(Math.max(seconds, 0), this.duration);
    // A zero step applies the pose without moving time on.
    this.mixer.update(0);
  }

  /** Moves time on by `seconds` of wall clock while playing. */
  advance(seconds: number): void {
    if (this.playing) this.mixer.update(seconds);
  }

  /** Stops every action and forgets the scene. */
  dispose(): void {
    this.mixer.stopAllAction();
    this.mixer.uncacheRoot(this.mixer.getRoot());
  }
}
