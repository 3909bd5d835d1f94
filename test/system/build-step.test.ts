// The build before `npm start` (scripts/build.js), run on a project of a few files laid out as this one is: it
// builds what changed since its last successful build, and nothing when nothing did.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO, tempDir } from './service-process.ts';

/** The small project's files, by path: a server in src/ and a viewer in web/ that imports from src/. */
const PROJECT: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'tiny', private: true, type: 'module' }),
  'package-lock.json': JSON.stringify({ name: 'tiny', lockfileVersion: 3, packages: {} }),
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2023',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      skipLibCheck: true,
      types: [],
    },
    include: ['src'],
  }),
  'tsconfig.build.json': JSON.stringify({
    extends: './tsconfig.json',
    compilerOptions: { outDir: 'dist', rootDir: 'src' },
    include: ['src'],
  }),
  'src/cli.ts': "export const GREETING: string = 'hello';\n",
  'src/server-only.ts': 'export const PORT: number = 8080;\n',
  'web/index.html':
    '<!doctype html><html><body><script type="module" src="./main.ts"></script></body></html>\n',
  'web/main.ts': "import { GREETING } from '../src/cli.ts';\ndocument.body.textContent = GREETING;\n",
  'web/vite.config.ts': [
    "import { fileURLToPath } from 'node:url';",
    "export default { root: fileURLToPath(new URL('.', import.meta.url)), build: { outDir: 'dist', emptyOutDir: true } };",
    '',
  ].join('\n'),
};

/** What one run of the build printed, and how it ended. */
interface BuildRun {
  status: number | null;
  output: string;
  /** The targets it built, in order. */
  built: string[];
}

void describe('the build step', () => {
  let project = '';

  before(() => {
    project = tempDir('build-step');
    for (const [file, text] of Object.entries(PROJECT)) write(file, text);
    fs.mkdirSync(path.join(project, 'scripts'));
    for (const name of fs.readdirSync(path.join(REPO, 'scripts')))
      fs.copyFileSync(path.join(REPO, 'scripts', name), path.join(project, 'scripts', name));
    // The compilers come from this repository's dependencies.
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  });

  after(() => fs.rmSync(project, { recursive: true, force: true }));

  function write(file: string, text: string): void {
    fs.mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    fs.writeFileSync(path.join(project, file), text);
  }

  function build(...args: string[]): BuildRun {
    const result = spawnSync(process.execPath, [path.join(project, 'scripts', 'build.js'), ...args], {
      cwd: project,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const output = `${result.stdout}${result.stderr}`;
    const built = [...output.matchAll(/^Building the (\w+) into /gm)].map((match) => match[1]!);
    return { status: result.status, output, built };
  }

  void it('builds the server and the viewer the first time', () => {
    const run = build();
    assert.equal(run.status, 0, run.output);
    assert.deepEqual(run.built, ['server', 'viewer']);
    assert.match(fs.readFileSync(path.join(project, 'dist', 'cli.js'), 'utf8'), /hello/);
    assert.ok(fs.existsSync(path.join(project, 'web', 'dist', 'index.html')));
  });

  void it('builds nothing again while nothing changed, and says so', () => {
    const run = build();
    assert.equal(run.status, 0, run.output);
    assert.deepEqual(run.built, []);
    assert.match(run.output, /^Up to date, not rebuilt: server \(dist\/\), viewer \(web\/dist\/\)$/m);
  });

  void it('rebuilds only the viewer after an edit in web/', () => {
    write('web/main.ts', `${PROJECT['web/main.ts']}document.title = GREETING;\n`);
    const run = build();
    assert.equal(run.status, 0, run.output);
    assert.deepEqual(run.built, ['viewer']);
    assert.match(run.output, /^Up to date, not rebuilt: server \(dist\/\)$/m);
  });

  void it('rebuilds both after an edit in src/, which the viewer imports from', () => {
    write('src/cli.ts', "export const GREETING: string = 'good morning';\n");
    const run = build();
    assert.equal(run.status, 0, run.output);
    assert.deepEqual(run.built, ['server', 'viewer']);
    assert.match(fs.readFileSync(path.join(project, 'dist', 'cli.js'), 'utf8'), /good morning/);
    assert.deepEqual(build().built, []);
  });

  void it('rebuilds after a file is added or removed, and when an output is gone', () => {
    write('src/added.ts', 'export const ADDED = 1;\n');
    assert.deepEqual(build().built, ['server', 'viewer']);
    fs.rmSync(path.join(project, 'src', 'added.ts'));
    assert.deepEqual(build().built, ['server', 'viewer']);
    fs.rmSync(path.join(project, 'web', 'dist'), { recursive: true });
    assert.deepEqual(build().built, ['viewer']);
    assert.ok(fs.existsSync(path.join(project, 'web', 'dist', 'index.html')));
  });

  void it('fails on a compile error, and tries again on the next run rather than trusting the last build', () => {
    write('src/server-only.ts', 'export const PORT: number = "8080";\n');
    const failed = build();
    assert.notEqual(failed.status, 0, failed.output);
    assert.deepEqual(failed.built, ['server']);
    assert.notEqual(build().status, 0, 'still failing, not skipped');
    // Back to the sources the viewer was last built from: only the server, whose build failed, is built again.
    write('src/server-only.ts', PROJECT['src/server-only.ts']!);
    const fixed = build();
    assert.equal(fixed.status, 0, fixed.output);
    assert.deepEqual(fixed.built, ['server']);
  });

  void it('builds everything with --force', () => {
    assert.deepEqual(build('--force').built, ['server', 'viewer']);
  });
});
