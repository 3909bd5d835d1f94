#!/usr/bin/env node
// `npm run build` (and the build before `npm start`): compiles the server into dist/ and the viewer into web/dist/,
// each only when the fingerprint of its inputs differs from the one recorded after its last successful build, so a
// start on an unchanged checkout skips both. `--force` builds both regardless.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';
import { fingerprint } from './fingerprint.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
/** What every build depends on besides its own sources: dependencies, compiler settings and this script. */
const SHARED_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'scripts'];

/**
 * @typedef {object} Target
 * @property {string} name what it is, as printed
 * @property {string} output the folder it builds into, as printed
 * @property {string} built a file every complete build leaves, checked before trusting the record
 * @property {string[]} inputs files and folders whose content decides the output
 * @property {string[]} exclude folders under `inputs` that are not inputs (the output itself)
 * @property {string[]} command node arguments that build it
 */

/** @type {Target[]} */
const TARGETS = [
  {
    name: 'server',
    output: 'dist/',
    built: 'dist/cli.js',
    inputs: ['src', 'tsconfig.build.json', ...SHARED_INPUTS],
    exclude: [],
    command: [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
  },
  {
    // The viewer imports types and constants from src/, so src/ is among its inputs.
    name: 'viewer',
    output: 'web/dist/',
    built: 'web/dist/index.html',
    inputs: ['web', 'src', ...SHARED_INPUTS],
    exclude: ['web/dist'],
    command: [
      path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js'),
      'build',
      '--config',
      'web/vite.config.ts',
      '--logLevel',
      'warn',
    ],
  },
];

/**
 * Where a target's fingerprint is recorded: in dist/, which a fresh clone lacks and which removing dist/ clears.
 * @param {Target} target
 */
function recordOf(target) {
  return path.join(ROOT, 'dist', `.build-${target.name}.sha256`);
}

/**
 * True when the target's output is complete and was built from inputs with this fingerprint.
 * @param {Target} target
 * @param {string} current
 */
function upToDate(target, current) {
  try {
    return (
      fs.existsSync(path.join(ROOT, target.built)) && fs.readFileSync(recordOf(target), 'utf8') === current
    );
  } catch {
    return false;
  }
}

/**
 * Builds the target, recording its fingerprint only once the build has succeeded (a failed or interrupted build
 * leaves no record, so the next one starts over); exits with the build's code when it fails.
 * @param {Target} target
 * @param {string} current
 */
function build(target, current) {
  fs.rmSync(recordOf(target), { force: true });
  process.stdout.write(`Building the ${target.name} into ${target.output}\n`);
  const result = spawnSync(process.execPath, target.command, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  fs.mkdirSync(path.dirname(recordOf(target)), { recursive: true });
  fs.writeFileSync(recordOf(target), current);
}

const force = process.argv.includes('--force');
const fresh = [];
for (const target of TARGETS) {
  const current = fingerprint(ROOT, target.inputs, target.exclude);
  if (!force && upToDate(target, current)) fresh.push(`${target.name} (${target.output})`);
  else build(target, current);
}
if (fresh.length > 0) process.stdout.write(`Up to date, not rebuilt: ${fresh.join(', ')}\n`);
