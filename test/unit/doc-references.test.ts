import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/**
 * The repository carries its own contract (docs/): whoever clones it must be able to
 * follow every reference in its code, tests, scripts and markdown. This fails on:
 *
 * - a relative markdown link to a file that does not exist, or to a heading that does not;
 * - a `docs/<name>.md` (or `docs/<name>.md#anchor`) that does not exist;
 * - a citation of docs/task-store.md by a section number that has no heading there;
 * - the forms that pointed outside the repository: "spec section N", "(spec: ...)",
 *   "(design: ...)", `design.md` not under docs/, `/work/shared`, a `../shared` that
 *   resolves to nothing here.
 */

/** What a check needs to know about the repository; the real one, or a made-up one. */
interface Repo {
  /** Does this path (relative to the root) exist, as a file or a folder? */
  exists(rel: string): boolean;
  /** The anchors of a markdown file's headings (GitHub's slugs), or undefined when it is not there. */
  anchors(rel: string): ReadonlySet<string> | undefined;
  /** The section numbers of docs/task-store.md (`6`, `6.5`). */
  storeSections(): ReadonlySet<string>;
}

const STORE_DOC = 'docs/task-store.md';

/** `[text](target)` or `[text](target "title")`; the text may hold `]` not followed by `(`. */
const LINK = /\[(?:[^\]\n]|\][^(\n])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

/** Fenced code blocks, which hold examples, not headings or links. */
function withoutFences(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** `## 6. Operations` -> 6, `### 6.5 claim(id, agent)` -> 6.5. */
function sectionNumbers(markdown: string): Set<string> {
  const numbers = new Set<string>();
  for (const m of withoutFences(markdown).matchAll(/^#{2,3}\s+(\d+(?:\.\d+)?)\.?\s/gm)) numbers.add(m[1]!);
  return numbers;
}

/** The numbers a citation names: "3", "9 and 10", "1-4", "6.2 and 6.5", "5, 6 and 8". */
function citedNumbers(list: string): string[] {
  const out: string[] = [];
  for (const part of list.split(/\s*(?:,|\band\b|\bor\b)\s*/)) {
    const range = /^(\d+)\s*[-–]\s*(\d+)$/.exec(part.trim());
    if (range) {
      for (let n = Number(range[1]); n <= Number(range[2]); n++) out.push(String(n));
    } else if (/^\d+(?:\.\d+)?$/.test(part.trim())) out.push(part.trim());
  }
  return out;
}

/** A comment's line breaks (`\n * `, `\n// `, `\n# `) read as spaces, so that a citation can wrap. */
function joinedLines(text: string): string {
  return text.replace(/\n[ \t]*(?:\*(?!\/)|\/\/|#)?[ \t]*/g, ' ');
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** Every bad reference in one file (`file` relative to the root, with `/`). */
function badReferences(file: string, text: string, repo: Repo): string[] {
  const problems: string[] = [];
  const dir = path.posix.dirname(file);
  const at = (index: number, what: string) => problems.push(`${file}:${lineOf(text, index)}: ${what}`);
  const inDocs = file.startsWith('docs/');
  let prose = text;

  if (file.endsWith('.md')) {
    // Code is neither a link nor a heading: fenced blocks and code spans are blanked first.
    const blank = (s: string) => s.replace(/[^\n]/g, ' ');
    const source = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, blank).replace(/`[^`\n]*`/g, blank);
    for (const m of source.matchAll(LINK)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
      const rel = pathPart === '' ? file : path.posix.normalize(path.posix.join(dir, decodeURIComponent(pathPart)));
      if (rel.startsWith('..')) {
        at(m.index, `link to ${target} leaves the repository`);
        continue;
      }
      if (!repo.exists(rel)) {
        at(m.index, `link to ${target}: ${rel} does not exist`);
        continue;
      }
      const anchors = pathPart === '' ? headingAnchors(text) : rel.endsWith('.md') ? repo.anchors(rel) : undefined;
      if (anchor !== undefined && anchors !== undefined && !anchors.has(anchor.toLowerCase())) {
        at(m.index, `link to ${target}: ${rel} has no heading #${anchor}`);
      }
    }
    // A link is checked above; its text ("[design.md](docs/design.md)") is no reference of its own.
    prose = text.replace(LINK, blank);
  }

  for (const m of prose.matchAll(/(?<![\w/.-])(docs\/[\w./-]+?\.md)(?:#([\w-]+))?(?![\w/-])/g)) {
    const [, doc, anchor] = m;
    if (!repo.exists(doc!)) at(m.index, `${doc} does not exist`);
    else if (anchor !== undefined && !repo.anchors(doc!)?.has(anchor)) at(m.index, `${doc} has no heading #${anchor}`);
  }

  const joined = joinedLines(text);
  const sections = repo.storeSections();
  for (const m of joined.matchAll(
    /(?<![\w-])(?:docs\/)?task-store\.md,?\s+sections?\s+(\d+(?:\.\d+)?(?:\s*(?:,|[-–]|\band\b|\bor\b)\s*\d+(?:\.\d+)?)*)/gi,
  )) {
    for (const n of citedNumbers(m[1]!)) {
      if (!sections.has(n)) problems.push(`${file}: cites ${STORE_DOC} section ${n}, which it does not have`);
    }
  }

  // "(design: ...)" and "(spec: ...)" in prose; `complete(spec: Spec)` is a parameter.
  for (const m of joined.matchAll(/\bspec(?:'s)?\s+sections?\b|\btask-store spec\b|(?<![\w$])\((spec|design):\s+[a-z]/gi)) {
    const instead = m[1]?.toLowerCase() === 'design' ? 'docs/design.md' : `${STORE_DOC} section N`;
    problems.push(`${file}: "${m[0].replace(/\s+[a-z]$/i, '')}" cites a document outside the repository; cite ${instead}`);
  }
  if (!inDocs) {
    for (const m of prose.matchAll(/(?<![\w/.-])(design|task-store)\.md\b/g)) {
      at(m.index, `"${m[0]}" outside docs/: write docs/${m[0]}`);
    }
  }
  for (const m of text.matchAll(/\/work\/shared\b/g)) at(m.index, `${m[0]} is outside the repository`);
  for (const m of prose.matchAll(/(?<![\w.])\.\.\/shared\b/g)) {
    if (!repo.exists(path.posix.normalize(path.posix.join(dir, '../shared')))) at(m.index, `${m[0]} names nothing in the repository`);
  }
  return problems;
}

/** Folders that hold nothing of ours to read: installs, builds, caches. */
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', '.interop-cache', 'coverage']);
const TEXT_FILES = /\.(ts|mts|cts|js|mjs|cjs|md|sh|bash|zsh|fish)$/;
/** This file: it holds, as examples, the very references it looks for. */
const SELF = 'test/unit/doc-references.test.ts';

function repoFiles(dir = ROOT): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    const rel = path.relative(ROOT, full).split(path.sep).join('/');
    if (e.isDirectory()) return SKIP_DIRS.has(e.name) || (e.name.startsWith('.') && e.name !== '.ci') ? [] : repoFiles(full);
    if (!e.isFile() || rel === SELF) return [];
    // Recorded output of Claude Code is data, not our text; the fixtures' READMEs are ours.
    if (rel.startsWith('test/fixtures/')) return rel.endsWith('.md') ? [rel] : [];
    return TEXT_FILES.test(e.name) || rel === '.ci/run' ? [rel] : [];
  });
}

const realRepo: Repo = {
  exists: (rel) => fs.existsSync(path.join(ROOT, rel)),
  anchors: (rel) => {
    const file = path.join(ROOT, rel);
    return fs.existsSync(file) && fs.statSync(file).isFile() ? headingAnchors(fs.readFileSync(file, 'utf8')) : undefined;
  },
  storeSections: () => sectionNumbers(fs.readFileSync(path.join(ROOT, STORE_DOC), 'utf8')),
};

describe('references to documents', () => {
  it('every one in code, tests, scripts and markdown points at something in the repository', () => {
    const files = repoFiles();
    // The scan must see what it is meant to see, or an empty pass proves nothing.
    expect(files).toEqual(
      expect.arrayContaining(['README.md', STORE_DOC, 'src/core/README.md', 'src/core/locks/locks.ts', 'test/interop/README.md']),
    );
    const problems = files.flatMap((f) => badReferences(f, fs.readFileSync(path.join(ROOT, f), 'utf8'), realRepo));
    expect(problems).toEqual([]);
  });

  it('docs/task-store.md numbers its sections, as code cites them', () => {
    const numbers = realRepo.storeSections();
    for (const n of ['1', '3', '5', '6', '6.2', '6.5', '6.8', '10', '17']) expect(numbers.has(n), `section ${n}`).toBe(true);
  });
});

describe('the reference check', () => {
  const store = '# The store\n\n## 1. Where\n\n## 6. Operations\n\n### 6.5 claim\n\n```\n## 9. not a heading\n```\n';
  const fake: Repo = {
    exists: (rel) => ['docs', 'docs/task-store.md', 'docs/design.md', 'README.md', 'src/a.ts'].includes(rel),
    anchors: (rel) => (rel === 'docs/task-store.md' ? headingAnchors(store) : rel.endsWith('.md') ? new Set() : undefined),
    storeSections: () => sectionNumbers(store),
  };
  const check = (file: string, text: string) => badReferences(file, text, fake);

  it('makes anchors as GitHub does, and numbers sections outside code only', () => {
    expect([...headingAnchors(store)]).toEqual(['the-store', '1-where', '6-operations', '65-claim']);
    expect(slug('Dependencies: `block`, `unblock`')).toBe('dependencies-block-unblock');
    expect([...sectionNumbers(store)]).toEqual(['1', '6', '6.5']);
  });

  it('passes references that resolve', () => {
    expect(check('src/a.ts', '// the list lock (docs/task-store.md section 6.5); see docs/design.md\n')).toEqual([]);
    expect(check('src/a.ts', ' * rules (docs/task-store.md sections 1 and\n * 6): x, docs/task-store.md sections 1-1\n')).toEqual([]);
    expect(check('README.md', 'See [design.md](docs/design.md) and [claims](docs/task-store.md#65-claim), [top](#x).\n# X\n')).toEqual([]);
    expect(check('docs/design.md', 'as [task-store.md section 6](task-store.md#6-operations) says; design.md\n')).toEqual([]);
    expect(check('README.md', '```\n[not a link](missing.md)\n```\n`[--stalled [dur]]` and (`x`)\n')).toEqual([]);
  });

  it('catches a link to a missing file or heading, and one leaving the repository', () => {
    expect(check('README.md', 'See [x](docs/missing.md).\n')).toEqual([
      'README.md:1: link to docs/missing.md: docs/missing.md does not exist',
    ]);
    expect(check('README.md', 'See [x](docs/task-store.md#7-hooks).\n')).toEqual([
      'README.md:1: link to docs/task-store.md#7-hooks: docs/task-store.md has no heading #7-hooks',
    ]);
    expect(check('docs/design.md', '\n[spec](../../shared/spec/task-store.md)\n')).toEqual([
      'docs/design.md:2: link to ../../shared/spec/task-store.md leaves the repository',
    ]);
  });

  it('catches a docs/ file that does not exist', () => {
    expect(check('src/a.ts', '/** see docs/json-output.md */\n')).toEqual(['src/a.ts:1: docs/json-output.md does not exist']);
  });

  it('catches a citation of a section docs/task-store.md does not have', () => {
    expect(check('src/a.ts', '// (docs/task-store.md section 9)\n')).toEqual([
      `src/a.ts: cites ${STORE_DOC} section 9, which it does not have`,
    ]);
    expect(check('src/a.ts', ' * (docs/task-store.md sections\n * 6.5 and 6.7)\n')).toEqual([
      `src/a.ts: cites ${STORE_DOC} section 6.7, which it does not have`,
    ]);
    expect(check('src/a.ts', '// docs/task-store.md sections 1-3\n')).toEqual(
      [2, 3].map((n) => `src/a.ts: cites ${STORE_DOC} section ${n}, which it does not have`),
    );
  });

  it('catches the old forms that pointed outside the repository', () => {
    expect(check('src/a.ts', ' * Locks (spec section\n * 5): ...\n')).toEqual([
      `src/a.ts: "spec section" cites a document outside the repository; cite ${STORE_DOC} section N`,
    ]);
    expect(check('src/a.ts', '/** design.md: core knows nothing */\n')).toEqual([
      'src/a.ts:1: "design.md" outside docs/: write docs/design.md',
    ]);
    expect(check('src/a.ts', '// not blocked (spec: ids of missing tasks do not block)\n')).toEqual([
      `src/a.ts: "(spec:" cites a document outside the repository; cite ${STORE_DOC} section N`,
    ]);
    expect(check('src/a.ts', ' * time (design: core takes time)\n')).toEqual([
      'src/a.ts: "(design:" cites a document outside the repository; cite docs/design.md',
    ]);
    expect(check('src/a.ts', 'export function complete(spec: CompletionSpec) {}\n')).toEqual([]);
    expect(check('test/fixtures/x/README.md', 'made with `/work/shared/interop/run-claude.sh`\n')).toEqual([
      'test/fixtures/x/README.md:1: /work/shared is outside the repository',
    ]);
    expect(check('test/fixtures/README.md', 'real output is in `../shared/fixtures/`\n')).toEqual([
      'test/fixtures/README.md:1: ../shared names nothing in the repository',
    ]);
  });
});
