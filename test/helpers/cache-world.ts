import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { SETTLE_MS } from '../../src/core/cache/file-stamp.js';
import { FIXTURES, run, tempConfig } from './cli.js';
import { writeTranscript } from './session-files.mjs';

/**
 * A config folder with sessions, transcripts and lists as Claude Code leaves them, and the
 * persistent cache kept beside it: the world the persistent cache's tests change the way
 * the cache must notice (test/e2e/session-cache.test.ts, and its runs from many processes
 * at once in test/slow/session-cache-race.test.ts).
 */

// Sessions of a config folder, as Claude Code 2.1.328 leaves them.
export const NAMED = '3a1f0c52-0d5e-4c4e-9a57-6c1f4d7e0a01'; // on the named list "shared" (its transcript shows the tasks)
export const GROWN = '3a1f0c52-0d5e-4c4e-9a57-6c1f4d7e0a02'; // its Task-tool calls come later
export const OWN = '3a1f0c52-0d5e-4c4e-9a57-6c1f4d7e0a03'; // has its own list
export const TODO = '3a1f0c52-0d5e-4c4e-9a57-6c1f4d7e0a04'; // kept TodoWrite todos

export interface World {
  config: string;
  home: string;
  project: string;
  /** The cache folder ($XDG_CACHE_HOME) kept across this world's runs. */
  cache: string;
  transcript: (id: string) => string;
}

export function world(): World {
  const config = tempConfig();
  const home = path.join(config, 'home');
  const project = path.join(home, 'work', 'app');
  fs.mkdirSync(project, { recursive: true });
  const start = Date.now() - 120_000;
  fs.cpSync(path.join(FIXTURES, 'sessions', 'shared-list'), path.join(config, 'tasks', 'shared'), { recursive: true });
  const own = path.join(config, 'tasks', OWN);
  fs.mkdirSync(own, { recursive: true });
  fs.writeFileSync(
    path.join(own, '1.json'),
    JSON.stringify({ id: '1', subject: 'Ship', description: '', status: 'in_progress', blocks: [], blockedBy: [], owner: 'main' }),
  );
  const at = { start, end: start + 60_000 };
  writeTranscript(config, { sessionId: NAMED, cwd: project, prompt: 'build the parser', source: 'tasks', ...at });
  writeTranscript(config, { sessionId: OWN, cwd: project, prompt: 'ship it', todos: false, ...at });
  writeTranscript(config, { sessionId: TODO, cwd: project, prompt: 'plan the week', ...at });
  // The same run as NAMED's, cut before its first Task-tool call: it grows into it later.
  const grown = writeTranscript(config, { sessionId: GROWN, cwd: project, prompt: 'build the parser too', source: 'tasks', ...at });
  const lines = fs.readFileSync(grown, 'utf8').split('\n');
  const cut = lines.findIndex((l) => l.includes('"name":"TaskCreate"'));
  fs.writeFileSync(grown, `${lines.slice(0, cut).join('\n')}\n`);
  fs.writeFileSync(`${grown}.rest`, lines.slice(cut).join('\n'));
  const transcript = (id: string) => path.join(config, 'projects', project.replace(/[^a-zA-Z0-9]/g, '-'), `${id}.jsonl`);
  return { config, home, project, cache: path.join(config, 'cache'), transcript };
}

/**
 * A run's clock ($TASKS_NOW) past the cache's settling time: what a run reads was written
 * longer ago than that, and is trusted while the files keep their stamps, as if the test
 * had waited; a file changed since still shows a new stamp.
 */
export const settled = () => ({ TASKS_NOW: String(Date.now() + SETTLE_MS + 300) });

/** `tasks lists --json` (and `more`) with the world's cache (kept), or with none (a fresh, empty cache folder each run). */
export function lists(w: World, cache: 'kept' | 'none' | string, more: string[] = []): Array<{ id: string; sessionIds?: string[] }> {
  const folder = cache === 'kept' ? w.cache : cache === 'none' ? fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-no-cache-')) : cache;
  const r = run(w.config, ['lists', '--json', ...more], { cwd: w.project, env: { XDG_CACHE_HOME: folder, ...settled() } });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

/** The shard files of a world's kept cache. */
export function shards(w: World): string[] {
  const root = path.join(w.cache, 'tasks');
  if (!fs.existsSync(root)) return [];
  // code-cache/ holds a Node's own code cache of the bundle (a Node other than the build's), not shards.
  return fs
    .readdirSync(root)
    .filter((owner) => owner !== 'code-cache')
    .flatMap((owner) => fs.readdirSync(path.join(root, owner)).map((name) => path.join(root, owner, name)));
}
