// The layering of src/ holds: no module imports a higher layer or another feature's own modules, no two features
// import each other; every folder has its layer; the README draws the layers as layers.ts has them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { crosses, edgeName, importEdges, layerOf, memberOf, SRC, twoWayFeatures } from './import-graph.ts';
import { LAYERS } from './layers.ts';

void describe('the import graph of src/', () => {
  const edges = importEdges();

  void it('reads the imports of every module (a sanity floor, so a broken reader cannot pass)', () => {
    assert.ok(edges.length > 500, `${edges.length} imports`);
    assert.ok(
      edges.some((edge) => edge.from === 'app.ts' && edge.to === 'catalog/routes.ts'),
      'app.ts mounts the catalog routes',
    );
  });

  void it('puts every folder and top-level file of src/ in exactly one layer', () => {
    const members = fs
      .readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')))
      .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
    assert.deepEqual(
      members.filter((member) => layerOf(member) === -1),
      [],
      'members of no layer',
    );
    const listed = LAYERS.flatMap((layer) => layer.members);
    assert.equal(new Set(listed).size, listed.length, 'a member listed in two layers');
    assert.deepEqual(
      listed.filter((member) => !members.includes(member)),
      [],
      'layers naming what src/ does not have',
    );
  });

  void it('has no import that goes up a layer or into another feature’s own modules', () => {
    assert.deepEqual(
      edges.filter(crosses).map(edgeName),
      [],
      'move the code to the layer that owns it, or publish it from its feature',
    );
  });

  void it('tells an upward import and a feature’s own module from what is allowed', () => {
    assert.ok(crosses({ from: 'pipeline/a.ts', to: 'catalog/b.ts' }), 'engine importing a feature');
    assert.ok(crosses({ from: 'catalog/a.ts', to: 'materials/routes.ts' }), 'a feature’s own routes');
    assert.ok(!crosses({ from: 'catalog/a.ts', to: 'materials/repository.ts' }), 'a published repository');
    assert.ok(!crosses({ from: 'catalog/a.ts', to: 'pipeline/b.ts' }), 'a feature importing the engine');
    assert.ok(!crosses({ from: 'app.ts', to: 'catalog/routes.ts' }), 'the app mounting a feature');
    assert.equal(memberOf('catalog/routes.ts'), 'catalog/');
    assert.equal(memberOf('app.ts'), 'app.ts');
  });

  void it('has no two features importing each other, even through what they publish', () => {
    assert.deepEqual(
      twoWayFeatures(edges),
      [],
      'two features that import each other are one feature: merge them',
    );
  });

  void it('tells two features importing each other from one importing the other', () => {
    const oneWay = [
      { from: 'exports/a.ts', to: 'catalog/repository.ts' },
      { from: 'review/a.ts', to: 'catalog/schemas.ts' },
      { from: 'catalog/a.ts', to: 'catalog/versions/b.ts' },
      { from: 'catalog/a.ts', to: 'pipeline/b.ts' },
      { from: 'app.ts', to: 'catalog/routes.ts' },
    ];
    assert.deepEqual(twoWayFeatures(oneWay), []);
    const twoWay = [
      ...oneWay,
      { from: 'materials/a.ts', to: 'catalog/schemas.ts' },
      { from: 'catalog/b.ts', to: 'materials/repository.ts' },
    ];
    assert.deepEqual(twoWayFeatures(twoWay), ['catalog/ <-> materials/']);
  });

  void it('is drawn in the README’s Architecture section, layer by layer', () => {
    const readme = fs.readFileSync(path.join(SRC, '../README.md'), 'utf8');
    const section = /^## Architecture\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
    assert.ok(section, 'README has an "## Architecture" section');
    for (const layer of LAYERS) {
      // One list item per layer, which may wrap over several lines.
      const item = section.split(/\n(?=- \*\*)/).find((text) => text.startsWith(`- **${layer.name}**`));
      assert.ok(item, `the section draws the ${layer.name} layer`);
      for (const member of layer.members) {
        assert.ok(item.includes(`\`${member}\``), `${layer.name}: ${member} in its item`);
      }
    }
  });
});
