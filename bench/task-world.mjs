// Lists of realistic tasks for the benchmarks (bench/run.mjs, bench/board.mjs and the
// worlds of bench/session-world.mjs): subjects, descriptions, owners, dependencies on
// earlier tasks recorded on both sides, some metadata; the same n gives the same tasks.
import fs from 'node:fs';
import path from 'node:path';

const VERBS = ['Fix', 'Add', 'Refactor', 'Document', 'Test', 'Remove', 'Rename', 'Profile', 'Review', 'Migrate'];
const NOUNS = [
  'auth flow',
  'session cache',
  'billing API',
  'CLI parser',
  'config loader',
  'retry logic',
  'user model',
  'search index',
  'upload path',
  'rate limiter',
];
const OWNERS = ['researcher', 'implementer', 'tester', 'reviewer', 'docs-writer', 'team-lead'];
const ING = {
  Fix: 'Fixing',
  Add: 'Adding',
  Refactor: 'Refactoring',
  Document: 'Documenting',
  Test: 'Testing',
  Remove: 'Removing',
  Rename: 'Renaming',
  Profile: 'Profiling',
  Review: 'Reviewing',
  Migrate: 'Migrating',
};

function rng(seed) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

/** n realistic tasks: subjects, descriptions, owners, mirrored dependencies, some metadata. */
export function makeTasks(n) {
  const rand = rng(n);
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const tasks = [];
  for (let i = 1; i <= n; i++) {
    const verb = pick(VERBS);
    const noun = pick(NOUNS);
    const r = rand();
    const status = r < 0.4 ? 'completed' : r < 0.55 ? 'in_progress' : 'pending';
    const t = {
      id: String(i),
      subject: `${verb} ${noun} (${i})`,
      description: `${verb} the ${noun} so that it handles the edge cases found in review; see notes in docs/${noun.replace(' ', '-')}.md and keep the public interface stable.`,
      activeForm: `${ING[verb]} ${noun}`,
      ...(status !== 'pending' || rand() < 0.3 ? { owner: pick(OWNERS) } : {}),
      status,
      blocks: [],
      blockedBy: [],
      ...(rand() < 0.3 ? { metadata: { priority: pick(['low', 'medium', 'high']), estimate: Math.ceil(rand() * 8) } } : {}),
    };
    tasks.push(t);
  }
  for (const t of tasks) {
    const id = Number(t.id);
    if (id > 3 && rand() < 0.3) {
      const k = 1 + Math.floor(rand() * 3);
      for (let j = 0; j < k; j++) {
        const b = String(1 + Math.floor(rand() * (id - 1)));
        if (!t.blockedBy.includes(b)) {
          t.blockedBy.push(b);
          tasks[Number(b) - 1].blocks.push(t.id);
        }
      }
    }
  }
  return tasks;
}

export function writeList(config, listId, tasks) {
  const dir = path.join(config, 'tasks', listId);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, '.lock'), '');
  for (const t of tasks) fs.writeFileSync(path.join(dir, `${t.id}.json`), JSON.stringify(t, null, 2));
  return dir;
}
