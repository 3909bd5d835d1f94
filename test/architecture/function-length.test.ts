// The house limits on size hold in src/ and web/src/: no function over 150 lines but Fastify route registrations
// in a routes module, no module over 400 lines.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  allFunctionSpans,
  checkedModules,
  fileLines,
  functionSpans,
  MAX_FILE_LINES,
  MAX_FUNCTION_LINES,
  ROOT,
  spanName,
  type FunctionSpan,
} from './function-length.ts';

/**
 * Whether a function may be longer than the limit: it registers routes (see `isRouteRegistration`) and lives in a
 * routes module (`routes.ts`, `upload-routes.ts`, …), where a reader looks for a list of routes.
 */
function exempt(span: FunctionSpan): boolean {
  return span.registersRoutes && span.file.endsWith('routes.ts');
}

/** A module's text: a function of `bodyLines` lines of `statement`, then a closing brace. */
function moduleWith(statement: string, count: number): string {
  return `export function long(app: App) {\n${`  ${statement}\n`.repeat(count)}}\n`;
}

void describe('the size of functions and modules in src/ and web/src/', () => {
  const spans = allFunctionSpans();

  void it('reads every function (a sanity floor, so a broken reader cannot pass)', () => {
    assert.ok(spans.length > 2000, `${spans.length} functions`);
    assert.ok(
      spans.some((span) => span.file === 'src/app.ts' && span.name === 'buildApp' && span.lines > 20),
      'src/app.ts has buildApp',
    );
    assert.ok(
      spans.some((span) => span.file.startsWith('web/src/') && span.name === 'mountModelWorkspace'),
      'web/src is read',
    );
  });

  void it(`has no function over ${MAX_FUNCTION_LINES} lines but route registrations`, () => {
    assert.deepEqual(
      spans.filter((span) => span.lines > MAX_FUNCTION_LINES && !exempt(span)).map(spanName),
      [],
      'split them into named pieces with one job each',
    );
  });

  void it('counts a function from its signature to its closing brace, nested ones on their own', () => {
    const text = 'const outer = () => {\n  function inner() {\n    return 1;\n  }\n  return inner();\n};\n';
    assert.deepEqual(
      functionSpans('x.ts', text).map(({ name, line, lines }) => ({ name, line, lines })),
      [
        { name: 'outer', line: 1, lines: 6 },
        { name: 'inner', line: 2, lines: 3 },
      ],
    );
  });

  void it('exempts a function of route registrations, not a long one that registers a route or two', () => {
    const routes = moduleWith(`app.get('/a', { schema: {} }, async () => ({}));`, 200);
    assert.equal(functionSpans('x/routes.ts', routes)[0]!.registersRoutes, true);
    const awaited = moduleWith(`await app.route({ method: 'GET', url: '/b', handler });`, 10);
    assert.equal(functionSpans('x/routes.ts', awaited)[0]!.registersRoutes, true, 'an awaited registration');
    const mostlyOther = `export function long(app: App) {\n  app.get('/a', handler);\n${'  count += 1;\n'.repeat(200)}}\n`;
    const [span] = functionSpans('x/routes.ts', mostlyOther);
    assert.equal(span!.registersRoutes, false);
    assert.equal(exempt(span!), false);
    assert.equal(exempt({ ...functionSpans('x/service.ts', routes)[0]! }), false, 'only in a routes module');
  });

  void it(`has no module over ${MAX_FILE_LINES} lines`, () => {
    const modules = checkedModules();
    assert.ok(modules.length > 300, `${modules.length} modules`);
    assert.deepEqual(
      modules
        .map((file) => ({ file, lines: fileLines(fs.readFileSync(path.join(ROOT, file), 'utf8')) }))
        .filter((module) => module.lines > MAX_FILE_LINES)
        .map((module) => `${module.file} (${module.lines} lines)`),
      [],
      'split them into modules with one job each',
    );
  });
});
