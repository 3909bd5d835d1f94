// The checkout compiled for a test run. Node 20 runs a module loader's hooks on a thread of their own, so every module
// a test process loads through tsx waits on that thread: about 3 ms a module, and a suite that starts the app loads
// some 900 (kysely and TypeBox alone 460), a third of a small suite's processor time. The runner compiles the
// TypeScript once with esbuild into a copy of the tree where each `.ts` has its `.js` beside it and every other file
// (or folder with no modules) is a link to the original, and runs the tests there with no hooks: their conversion
// threads and processes start from the `.js` as the built server's do. Paths a test takes from `import.meta` land in
// the copy and reach the same files through the links; a test that reads the sources themselves, or starts the
// server from the checkout, takes it from CHECKOUT_ROOT (test/helpers/checkout-root.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';

/** The folders whose TypeScript is compiled; everything else at the top of the checkout is linked as it is. */
const COMPILED_FOLDERS = ['src', 'test', 'web', 'bench'];
/** Folders inside those that hold no sources of ours and are linked whole. */
const LINKED_FOLDERS = new Set(['node_modules', 'dist']);

/** A compiled copy of the checkout, and how to move between its paths and the checkout's. */
export interface CompiledTree {
  /** The copy's root. */
  root: string;
  /** The compiled file of a checkout `.ts` path (relative to the checkout or absolute): absolute, in the copy. */
  compiled(file: string): string;
  /** The checkout path, relative to it, of a path in the copy (`.js` of a compiled module back to its `.ts`). */
  source(file: string): string;
  /** Deletes the copy. */
  remove(): void;
}

/** True for a TypeScript module esbuild compiles (not a declaration file). */
const isModule = (name: string) => name.endsWith('.ts') && !name.endsWith('.d.ts');

/** What the copy holds of a folder with modules: folders to make, paths to link and modules to compile. */
interface FolderLayout {
  folders: string[];
  links: string[];
  modules: string[];
}

/**
 * The layout of `folder` (relative to `checkout`), read in one walk, or undefined when it holds no module at any
 * depth: such a folder (the sample models, say) is one link, so that what lists it sees plain files, as it does in
 * the checkout.
 */
function layoutOf(checkout: string, folder: string): FolderLayout | undefined {
  const layout: FolderLayout = { folders: [folder], links: [], modules: [] };
  for (const entry of fs.readdirSync(path.join(checkout, folder), { withFileTypes: true })) {
    const relative = path.join(folder, entry.name);
    const inner =
      entry.isDirectory() && !LINKED_FOLDERS.has(entry.name) ? layoutOf(checkout, relative) : undefined;
    if (inner) {
      layout.folders.push(...inner.folders);
      layout.links.push(...inner.links);
      layout.modules.push(...inner.modules);
      continue;
    }
    layout.links.push(relative);
    if (entry.isFile() && isModule(entry.name)) layout.modules.push(relative);
  }
  return layout.modules.length > 0 ? layout : undefined;
}

/**
 * esbuild leaves every import as it is, but a relative one to a `.ts` module names its `.js`: each module is
 * compiled alone (bundling on, so that imports are resolved at all, with every one of them kept outside).
 */
const relativeImportsToJs: esbuild.Plugin = {
  name: 'relative-imports-to-js',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) =>
      args.kind === 'entry-point' ? undefined : { path: args.path.replace(/\.ts$/, '.js'), external: true },
    );
  },
};

/**
 * Compiles the checkout into a new folder under the system's temporary one. Throws esbuild's error, naming each
 * file and line, when a module does not compile.
 */
export async function compileTree(checkout: string): Promise<CompiledTree> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-test-build-'));
  try {
    const modules: string[] = [];
    for (const entry of fs.readdirSync(checkout, { withFileTypes: true })) {
      const layout =
        entry.isDirectory() && COMPILED_FOLDERS.includes(entry.name)
          ? layoutOf(checkout, entry.name)
          : undefined;
      for (const folder of layout?.folders ?? []) fs.mkdirSync(path.join(root, folder));
      for (const link of layout?.links ?? [entry.name]) {
        fs.symlinkSync(path.join(checkout, link), path.join(root, link));
      }
      modules.push(...(layout?.modules ?? []).map((module) => path.join(checkout, module)));
    }
    await esbuild.build({
      entryPoints: modules,
      outbase: checkout,
      outdir: root,
      bundle: true,
      packages: 'external',
      format: 'esm',
      platform: 'node',
      // For the Node that runs the tests (older targets drop what they lack, import attributes among them).
      target: `node${process.versions.node}`,
      // Inline, so that a failure's stack names the TypeScript line (the runner passes --enable-source-maps).
      sourcemap: 'inline',
      plugins: [relativeImportsToJs],
      logLevel: 'silent',
    });
  } catch (error) {
    fs.rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return {
    root,
    compiled: (file) =>
      path.join(root, path.relative(checkout, path.resolve(checkout, file))).replace(/\.ts$/, '.js'),
    source: (file) => {
      const relative = path.relative(root, path.resolve(checkout, file));
      if (relative.startsWith('..')) return path.relative(checkout, path.resolve(checkout, file));
      return relative.replace(/\.js$/, '.ts');
    },
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
