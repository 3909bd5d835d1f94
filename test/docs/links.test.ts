import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { headingAnchors, markdownLinks } from './markdown-links.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

const REPO = CHECKOUT_ROOT + path.sep;
/** Folders that hold no documentation of the project: installed packages, build output, local data. */
const SKIPPED = new Set(['node_modules', '.git', 'dist', 'data', 'coverage']);

/** Every Markdown file of the repository, relative to its root. */
function markdownFiles(dir = REPO): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : markdownFiles(full);
    return entry.name.endsWith('.md') ? [path.relative(REPO, full)] : [];
  });
}

/** Why a link of `file` does not resolve inside the repository, or undefined when it does. */
function brokenReason(file: string, target: string): string | undefined {
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = pathPart
    ? path.resolve(REPO, path.dirname(file), decodeURI(pathPart))
    : path.join(REPO, file);
  if (!resolved.startsWith(REPO)) return 'points outside the repository';
  if (!fs.existsSync(resolved)) return 'no such file';
  if (anchor && resolved.endsWith('.md') && !headingAnchors(fs.readFileSync(resolved, 'utf8')).has(anchor))
    return `no heading with anchor #${anchor}`;
  return undefined;
}

/** The TypeScript modules under `dir`, relative to the repository's root. */
function modulesUnder(dir: string): string[] {
  return fs.readdirSync(path.join(REPO, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return modulesUnder(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

/**
 * The Markdown files the comments of `text` (a module at `file`) cite that the repository does not hold: a path
 * resolves from the module's folder or the repository's root, a bare name may be any Markdown file's.
 */
function missingCitations(file: string, text: string, markdown: readonly string[]): string[] {
  const names = new Set(markdown.map((doc) => path.basename(doc)));
  const comments = text.match(/\/\/.*|\/\*[\s\S]*?\*\//g) ?? [];
  const cited = comments.flatMap(
    (comment) => comment.replace(/\bhttps?:\/\/\S+/g, '').match(/[\w./-]+\.md\b/g) ?? [],
  );
  return cited.filter((doc) =>
    doc.includes('/')
      ? ![path.resolve(REPO, path.dirname(file), doc), path.resolve(REPO, doc)].some((full) =>
          fs.existsSync(full),
        )
      : !names.has(doc),
  );
}

void describe('links in the documentation', () => {
  const files = markdownFiles();

  void it('covers the READMEs, docs/ and the benchmarks', () => {
    for (const expected of ['README.md', 'BENCHMARKS.md', 'web/README.md', 'docs/behaviour.md'])
      assert.ok(files.includes(expected), `${expected} is checked`);
  });

  void it('every relative link and image resolves to a file (and heading) in the repository', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      for (const { target, line } of markdownLinks(fs.readFileSync(path.join(REPO, file), 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and the like
        checked += 1;
        const reason = brokenReason(file, target);
        if (reason) broken.push(`${file}:${line} ${target}: ${reason}`);
      }
    }
    assert.deepEqual(broken, []);
    assert.ok(checked > 0, 'some relative links were found');
  });

  void it('no comment in the code cites a Markdown file the repository does not hold', () => {
    // This file's own examples of citations are strings, which the comment reader cannot tell from comments.
    const code = ['src', 'test', 'bench', 'web/src']
      .flatMap((folder) => modulesUnder(folder))
      .filter((file) => file !== 'test/docs/links.test.ts');
    assert.ok(
      code.some((file) => file.startsWith('test/')) && code.some((file) => file.startsWith('web/src/')),
    );
    const missing = code.flatMap((file) =>
      missingCitations(file, fs.readFileSync(path.join(REPO, file), 'utf8'), files).map(
        (doc) => `${file}: ${doc}`,
      ),
    );
    assert.deepEqual(missing, [], 'say the rule itself, or cite a document of the repository');
    const text =
      '// See README.md and docs/behaviour.md, not DECISIONS.md.\nconst a = 1; /* spec/model-catalog.md */';
    assert.deepEqual(missingCitations('src/a.ts', text, files), ['DECISIONS.md', 'spec/model-catalog.md']);
  });

  void it('finds links and headings as GitHub reads them, and not those in code', () => {
    const text = [
      '## Running at `vitrine serve`',
      'See [the spec](../spec/model-catalog.md) and ![shot](docs/a.png "title").',
      '`[not](a-link.md)` and [site](https://example.com).',
      '```',
      '[inside](code.md)',
      '```',
      '[ref]: docs/ref.md',
      '## Running at vitrine serve',
    ].join('\n');
    assert.deepEqual(markdownLinks(text), [
      { target: '../spec/model-catalog.md', line: 2 },
      { target: 'docs/a.png', line: 2 },
      { target: 'https://example.com', line: 3 },
      { target: 'docs/ref.md', line: 7 },
    ]);
    assert.deepEqual([...headingAnchors(text)], ['running-at-vitrine-serve', 'running-at-vitrine-serve-1']);
    assert.equal(brokenReason('docs/behaviour.md', '../spec/model-catalog.md'), 'no such file');
    assert.equal(brokenReason('README.md', '#no-such-section'), 'no heading with anchor #no-such-section');
    assert.equal(brokenReason('README.md', '#running-at-scale'), undefined);
  });
});
