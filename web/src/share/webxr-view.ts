/** An immersive-ar WebXR session showing one GLB a metre and a half in front of the viewer, until it ends. */
import { AmbientLight, DirectionalLight, PerspectiveCamera, Scene, WebGLRenderer } from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { stillDraws } from './still-draws.ts';

/** Opens the session and draws the model in it; the page's own view stays as it was. */
export async function viewInWebXr(glbUrl: string): Promise<void> {
  const xr = (navigator as Navigator & { xr?: XRSystem }).xr;
  if (!xr) return;
  const session = await xr.requestSession('immersive-ar', { optionalFeatures: ['local-floor'] });
  const renderer = new WebGLRenderer({ antialias: true, alpha: true });
  renderer.xr.enabled = true;
  renderer.xr.setReferenceSpaceType('local');
  const scene = new Scene();
  scene.add(new AmbientLight(0xffffff, 1.2));
  const sun = new DirectionalLight(0xffffff, 2);
  sun.position.set(1, 3, 2);
  scene.add(sun);
  const camera = new PerspectiveCamera(60, 1, 0.01, 100);
  const gltf = await new GLTFLoader().loadAsync(glbUrl);
  // Only looked at here: a model of many parts is drawn a few calls per material and shared mesh, not a call per part.
  stillDraws(gltf.scene);
  gltf.scene.position.set(0, -0.5, -1.5);
  scene.add(gltf.scene);
  await renderer.xr.setSession(session);
  renderer.setAnimationLoop(() => renderer.render(scene, camera));
  session.addEventListener('end', () => {
    renderer.setAnimationLoop(null);
    renderer.dispose();
  });
}
