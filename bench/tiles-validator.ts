// CesiumGS's 3d-tiles-validator on generated tilesets: a model of spheres on a terrain
// (test/pipeline/spheres-terrain.ts, sixteen spheres and the terrain, a part each) of each size in
// BENCH_VALIDATOR_TRIANGLES (4,000,000 and 20,000,000 unless set, comma-separated) is tiled in process with the
// tiler's defaults (makeTiles, as a conversion tiles it, without the LOD pipeline's coarse leaves) into a temporary
// folder, and the validator reads the whole tileset. Reported per size: tiles, the validator's errors, warnings and
// infos (with the kinds of issue met), the root's geometricError and its children's, and the largest ratio of any
// tile's error to its children's largest (goal ≤ 8).
// Its infos are the glTF validator's notes on each tile (extensions it does not check itself, such as
// EXT_meshopt_compression, and "may be unused" objects); EXT_structural_metadata is checked by the 3D Tiles validator.
// The validator is not a dependency of the project: VITRINE_TILES_VALIDATOR names its built checkout (see below).
// With BENCH_VALIDATOR_ROOT_PNG=file.png the root tile of the last size alone is drawn there by the CPU renderer.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MeshoptSimplifier } from 'meshoptimizer';
import { createNodeIO } from '../src/gltf/create-io.ts';
import { extractParts } from '../src/pipeline/extract-parts.ts';
import { glbTriangleCount } from '../src/pipeline/tiles/glb-triangle-count.ts';
import { TILESET_FILE, makeTiles } from '../src/pipeline/tiles/make-tiles.ts';
import type { TileJson } from '../src/pipeline/tiles/tileset-json.ts';
import { collectTriangles } from '../src/pipeline/tiles/triangle-soup.ts';
import { renderThumbnailDetailed } from '../src/render/render-thumbnail.ts';
import { quietLogger } from '../test/pipeline/documents.ts';
import { spheresAndTerrain } from '../test/pipeline/spheres-terrain.ts';

const HOW_TO_GET_IT = `VITRINE_TILES_VALIDATOR must name a built checkout of CesiumGS's 3d-tiles-validator (GitHub:
CesiumGS/3d-tiles-validator), kept outside this repository, e.g. in ../3d-tiles-validator. In the checkout:
  - its 0.6.1 asks for 3d-tiles-tools 0.5.0, which the registry no longer has: set "3d-tiles-tools": "~0.5.3" in its
    package.json; and set sharp to ^0.34 (dependency and "overrides"), whose binaries come as npm packages where
    0.32 downloads them at install time;
  - npm install --cache /tmp/npm-cache-validator
  - npx tsc   (writes build/main.js)
then: VITRINE_TILES_VALIDATOR=../3d-tiles-validator node --import tsx bench/tiles-validator.ts`;

const validatorDir = process.env.VITRINE_TILES_VALIDATOR;
// `npx tsc` writes its entry point to build/main.js.
const validatorMain = validatorDir && path.join(validatorDir, 'build', 'main.js');
if (!validatorMain || !existsSync(validatorMain)) {
  process.stderr.write(`${validatorDir ? `${validatorMain} not found.\n` : ''}${HOW_TO_GET_IT}\n`);
  process.exit(1);
}
const sizes = (process.env.BENCH_VALIDATOR_TRIANGLES ?? '4000000,20000000').split(',').map(Number);
const rootPng = process.env.BENCH_VALIDATOR_ROOT_PNG;

/** The validator's report, as much of it as is read here. */
interface ValidationReport {
  numErrors: number;
  numWarnings: number;
  numInfos: number;
  issues: ValidationIssue[];
}
interface ValidationIssue {
  type: string;
  severity: string;
  causes?: ValidationIssue[];
}

/** Every issue of a report, the causes (a tile's content's own issues) counted by kind and severity. */
function issueKinds(issues: ValidationIssue[], kinds = new Map<string, number>()): Map<string, number> {
  for (const issue of issues) {
    const key = `${issue.severity} ${issue.type}`;
    kinds.set(key, (kinds.get(key) ?? 0) + 1);
    if (issue.causes) issueKinds(issue.causes, kinds);
  }
  return kinds;
}

/** The largest ratio of a tile's geometricError to its children's largest, where the children's is above 0. */
function worstGrowth(tile: TileJson): number {
  const children = tile.children ?? [];
  const childError = Math.max(0, ...children.map((child) => child.geometricError));
  const own = childError > 0 ? tile.geometricError / childError : 0;
  return Math.max(own, ...children.map(worstGrowth));
}

const say = (line: string) => process.stderr.write(`${line}\n`);
const rows: string[] = [];
for (const [index, triangles] of sizes.entries()) {
  const folder = await mkdtemp(path.join(tmpdir(), 'vitrine-bench-validator-'));
  try {
    const document = spheresAndTerrain(triangles);
    extractParts(document, { modelId: 'bench' }, { logger: quietLogger });
    const soup = collectTriangles(document, { logger: quietLogger });
    const count = soup.indices.length / 3;
    say(`${count} triangles; tiling into ${folder}`);
    const tileTriangles = new Map<string, number>();
    const started = performance.now();
    const summary = await makeTiles(
      soup,
      {
        simplifier: MeshoptSimplifier,
        io: await createNodeIO(),
        onFile: async (relative, bytes) => {
          const target = path.join(folder, relative);
          await mkdir(path.dirname(target), { recursive: true });
          await writeFile(target, bytes);
          if (relative.endsWith('.glb')) tileTriangles.set(relative, glbTriangleCount(bytes));
        },
      },
      { logger: quietLogger },
    );
    say(
      `tiled: ${summary.tileCount} tiles in ${((performance.now() - started) / 1000).toFixed(1)} s; validating`,
    );
    const reportFile = path.join(folder, 'report.json');
    const validated = spawnSync(
      process.execPath,
      [validatorMain, '--tilesetFile', path.join(folder, TILESET_FILE), '--reportFile', reportFile],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (!existsSync(reportFile)) throw new Error(`the validator wrote no report (exit ${validated.status})`);
    const report = JSON.parse(await readFile(reportFile, 'utf8')) as ValidationReport;
    const kinds = [...issueKinds(report.issues)].map(([kind, times]) => `${kind} ×${times}`).join(', ');
    const { root } = summary.tileset;
    const childErrors = (root.children ?? []).map((child) => child.geometricError);
    rows.push(
      `| ${count.toLocaleString('en-US')} | ${summary.tileCount} | ${report.numErrors} | ${report.numWarnings} | ` +
        `${report.numInfos} | ${root.geometricError.toFixed(3)} m, ${tileTriangles.get(root.content.uri)} triangles | ` +
        `${Math.min(...childErrors).toFixed(3)}–${Math.max(...childErrors).toFixed(3)} m | ` +
        `${worstGrowth(root).toFixed(2)} | ${kinds || 'none'} |`,
    );
    if (rootPng && index === sizes.length - 1) {
      const rendered = await renderThumbnailDetailed(await readFile(path.join(folder, root.content.uri)), {
        width: 1024,
        height: 768,
        view: { azimuth: 30, elevation: 40 },
        background: [1, 1, 1, 1],
      });
      await writeFile(rootPng, rendered.png);
      say(`root tile alone (${rendered.triangleCount} triangles) drawn to ${rootPng}`);
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
console.log(
  '| triangles | tiles | errors | warnings | infos | root error, triangles | root children errors | worst error growth (goal ≤ 8) | issues (severity, kind × times) |',
);
console.log('| ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | --- |');
for (const row of rows) console.log(row);
