/**
 * "View in AR" for a configuration's files: AR Quick Look on iOS (a `rel="ar"` link to the USDZ), Scene Viewer
 * on Android (an intent link to the GLB), an immersive-ar session where WebXR offers one; nothing elsewhere.
 */
import { h } from '../ui/dom.ts';
import { attempt } from '../ui/notify.ts';

/** How this browser can show a model in AR, if at all. */
export type ArKind = 'quick-look' | 'scene-viewer' | 'webxr' | null;

/** The files of the configuration shown in AR, as absolute or page-relative addresses. */
export interface ArFiles {
  glb: string;
  usdz: string;
  /** A picture for the Quick Look link, which needs an <img> child to open in AR. */
  thumbnail: string | null;
  name: string;
}

/** The AR this browser offers: Quick Look first (Safari on iOS says so through `relList`), then Android, then WebXR. */
export async function detectAr(): Promise<ArKind> {
  if (supportsQuickLook()) return 'quick-look';
  if (/\bAndroid\b/i.test(navigator.userAgent)) return 'scene-viewer';
  const xr = (navigator as Navigator & { xr?: { isSessionSupported(mode: string): Promise<boolean> } }).xr;
  if (xr && (await xr.isSessionSupported('immersive-ar').catch(() => false))) return 'webxr';
  return null;
}

/** Whether links may open AR Quick Look; a browser that knows no tokens of `rel` may throw instead of answering. */
function supportsQuickLook(): boolean {
  try {
    return document.createElement('a').relList.supports('ar');
  } catch {
    return false;
  }
}

/** The Scene Viewer intent for a GLB at an absolute https address; the browser falls back to nothing. */
export function sceneViewerIntent(glbUrl: string): string {
  const file = encodeURIComponent(new URL(glbUrl, location.href).href);
  return (
    `intent://arvr.google.com/scene-viewer/1.0?file=${file}&mode=ar_preferred` +
    '#Intent;scheme=https;package=com.google.ar.core;action=android.intent.action.VIEW;end;'
  );
}

/** The "View in AR" control for `kind`, or null when the browser has no AR. */
export function arLink(kind: ArKind, files: ArFiles): HTMLElement | null {
  const label = `View ${files.name} in AR`;
  switch (kind) {
    case 'quick-look':
      // Quick Look opens only a link whose first child is an image; the text rides beside it.
      return h(
        'a',
        { class: 'share-ar', rel: 'ar', href: files.usdz, 'aria-label': label },
        h('img', { src: files.thumbnail ?? undefined, alt: '', width: 48, height: 48 }),
        'View in AR',
      );
    case 'scene-viewer':
      return h(
        'a',
        { class: 'share-ar', href: sceneViewerIntent(files.glb), 'aria-label': label },
        'View in AR',
      );
    case 'webxr':
      return h(
        'button',
        {
          type: 'button',
          class: 'share-ar',
          'aria-label': label,
          // A session the person declines, or a device that cannot start one after all, is said, not dropped.
          onclick: () =>
            attempt('AR could not start', () =>
              import('./webxr-view.ts').then(({ viewInWebXr }) => viewInWebXr(files.glb)),
            ),
        },
        'View in AR',
      );
    default:
      return null;
  }
}
