// The length of every function and file of src/ and web/src/, read with the TypeScript compiler's parser, and the
// rule that tells a Fastify route registration (exempt from the function limit) from other code.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { modulesUnder } from './import-graph.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

/** The checkout's root, which the listed paths are relative to. */
export const ROOT = CHECKOUT_ROOT;

/** The folders whose modules the house limits hold for. */
export const CHECKED_FOLDERS = ['src', 'web/src'];

/** The most lines a function may span, from its first line (signature) to its closing brace. */
export const MAX_FUNCTION_LINES = 150;

/** The most lines a source file may have. */
export const MAX_FILE_LINES = 400;

/** One function (declaration, expression, arrow, method, accessor or constructor) and the lines it spans. */
export interface FunctionSpan {
  /** The module, relative to the checkout's root. */
  file: string;
  /** Its name, or `(anonymous)` with the line it starts on. */
  name: string;
  /** 1-based line its first token is on. */
  line: number;
  lines: number;
  /** Whether it is mostly route registrations (see {@link isRouteRegistration}). */
  registersRoutes: boolean;
}

/** The methods of a Fastify instance that register a route. */
const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'all', 'route']);

/** Every TypeScript module of the checked folders, relative to the checkout's root. */
export function checkedModules(): string[] {
  return CHECKED_FOLDERS.flatMap((folder) => modulesUnder(path.join(ROOT, folder), ROOT));
}

/** The number of lines of a module's text (a final newline does not start another line). */
export function fileLines(text: string): number {
  return text.replace(/\n$/, '').split('\n').length;
}

/** Whether a statement is `<instance>.get(…)`, `.post(…)`, …, `.route(…)`: one route registration. */
function registersRoute(statement: ts.Statement): boolean {
  if (!ts.isExpressionStatement(statement)) return false;
  let expression = statement.expression;
  if (ts.isAwaitExpression(expression)) expression = expression.expression;
  return (
    ts.isCallExpression(expression) &&
    ts.isPropertyAccessExpression(expression.expression) &&
    ROUTE_METHODS.has(expression.expression.name.text)
  );
}

/**
 * The exemption rule: a function is a route registration when the statements of its body that register a route
 * (`app.get(path, options, handler)` and kin) span at least half its lines. Such a function is a list of routes,
 * each a schema and a few lines of handler; splitting it would scatter one API's routes without making any
 * route shorter. A long handler inside it is still a function of its own, and still checked.
 */
export function isRouteRegistration(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): boolean {
  const body = node.body;
  if (body === undefined || !ts.isBlock(body)) return false;
  const lineOf = (position: number): number => source.getLineAndCharacterOfPosition(position).line;
  const routeLines = body.statements
    .filter(registersRoute)
    .reduce((sum, statement) => sum + lineOf(statement.end) - lineOf(statement.getStart(source)) + 1, 0);
  return routeLines * 2 >= lineOf(node.end) - lineOf(node.getStart(source)) + 1;
}

/** The name a reader would look a function up by. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile, line: number): string {
  if (node.name !== undefined) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name !== undefined) {
    return parent.name.getText(source);
  }
  return `(anonymous, line ${line})`;
}

/** Every function with a body in a module's text, nested ones included. */
export function functionSpans(file: string, text: string): FunctionSpan[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const spans: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const declaration = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(declaration.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(declaration.end).line;
      spans.push({
        file,
        name: nameOf(declaration, source, first + 1),
        line: first + 1,
        lines: last - first + 1,
        registersRoutes: isRouteRegistration(declaration, source),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return spans;
}

/** Every function of the checked folders. */
export function allFunctionSpans(): FunctionSpan[] {
  return checkedModules().flatMap((file) =>
    functionSpans(file, fs.readFileSync(path.join(ROOT, file), 'utf8')),
  );
}

/** A span as `file:line name (n lines)`, as a failure lists it. */
export function spanName(span: FunctionSpan): string {
  return `${span.file}:${span.line} ${span.name} (${span.lines} lines)`;
}
