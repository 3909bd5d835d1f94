import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { compileTree, type CompiledTree } from './compiled-tree.ts';

/** Writes `files` (path relative to `root` → text) under `root`. */
function writeFiles(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
}

void describe('the checkout compiled for a test run', () => {
  const checkout = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-compiled-tree-'));
  const trees: CompiledTree[] = [];
  after(() => {
    for (const tree of trees) tree.remove();
    fs.rmSync(checkout, { recursive: true, force: true });
  });
  writeFiles(checkout, {
    'package.json': JSON.stringify({ type: 'module' }),
    'tsconfig.json': JSON.stringify({ compilerOptions: { verbatimModuleSyntax: true } }),
    'src/shapes/area.ts': 'export const area = (side: number): number => side * side;\n',
    'src/shapes/types.d.ts': 'export type Side = number;\n',
    'src/settings.json': JSON.stringify({ side: 3 }),
    'src/main.ts': [
      "import type { Side } from './shapes/types.d.ts';",
      "import { area } from './shapes/area.ts';",
      "import settings from './settings.json' with { type: 'json' };",
      'const side: Side = settings.side;',
      "const { area: again } = await import('./shapes/area.ts');",
      "const here = new URL('./settings.json', import.meta.url);",
      'console.log(area(side), again(2), here.pathname.endsWith("/src/settings.json"));',
    ].join('\n'),
    'test/check.ts': 'export const checked: boolean = true;\n',
    'test/fixtures/data.txt': 'a fixture',
    'docs/guide.md': '# Guide',
  });

  void it('compiles every module beside a link to it, links everything else, and runs with no loader', async () => {
    const tree = await compileTree(checkout);
    trees.push(tree);
    const main = tree.compiled('src/main.ts');
    assert.equal(main, path.join(tree.root, 'src', 'main.js'));
    assert.equal(fs.existsSync(path.join(tree.root, 'src', 'shapes', 'area.js')), true);
    assert.equal(
      fs.existsSync(path.join(tree.root, 'src', 'shapes', 'types.js')),
      false,
      'a declaration file',
    );
    for (const linked of [
      'src/main.ts',
      'src/settings.json',
      'test/fixtures/data.txt',
      'docs',
      'package.json',
    ]) {
      assert.equal(
        fs.realpathSync(path.join(tree.root, linked)),
        fs.realpathSync(path.join(checkout, linked)),
      );
    }
    // A folder with no modules is one link, so that what lists it sees plain files (an importer's textures).
    assert.equal(fs.existsSync(path.join(tree.root, 'test', 'check.js')), true);
    assert.equal(fs.lstatSync(path.join(tree.root, 'test', 'fixtures')).isSymbolicLink(), true);
    const fixtures = fs.readdirSync(path.join(tree.root, 'test', 'fixtures'), { withFileTypes: true });
    assert.deepEqual(
      fixtures.map((entry) => [entry.name, entry.isFile()]),
      [['data.txt', true]],
    );
    // Plain node, no hooks: imports, the JSON import, a dynamic import and import.meta all work in the copy.
    assert.equal(execFileSync(process.execPath, [main], { encoding: 'utf8' }).trim(), '9 4 true');
  });

  void it('maps the copy’s paths back to the checkout’s', async () => {
    const tree = await compileTree(checkout);
    trees.push(tree);
    assert.equal(tree.source(tree.compiled('src/shapes/area.ts')), path.join('src', 'shapes', 'area.ts'));
    assert.equal(
      tree.source(path.relative(checkout, tree.compiled('src/main.ts'))),
      path.join('src', 'main.ts'),
    );
    assert.equal(tree.source(path.join(tree.root, 'test', 'fixtures', 'data.txt')), 'test/fixtures/data.txt');
    assert.equal(tree.source('src/main.ts'), path.join('src', 'main.ts'), 'a path of the checkout stays');
  });

  void it('fails naming the file and line of a module that does not compile, and leaves no copy', async () => {
    const broken = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-compiled-tree-broken-'));
    try {
      writeFiles(broken, { 'package.json': '{}', 'src/broken.ts': 'export const x = ;\n' });
      const before = fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('vitrine-test-build-'));
      await assert.rejects(compileTree(broken), /src\/broken\.ts:1:/);
      const afterwards = fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('vitrine-test-build-'));
      assert.deepEqual(
        afterwards.filter((name) => !before.includes(name)),
        [],
      );
    } finally {
      fs.rmSync(broken, { recursive: true, force: true });
    }
  });
});
