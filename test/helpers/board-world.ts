import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, readJson, tempConfig, writeTask } from './cli.js';
import { writeLiveSession, writeTranscript } from './session-files.mjs';

/**
 * The board's browser tests' world: three projects' sessions (the API one live and busy,
 * its process the test's own; one ended; one crashed), their lists, and an agent's way of
 * writing to them.
 */
const AGENT = path.join(ROOT, 'test', 'helpers', 'agent-task.mjs');
export const API = '2d483082-5b0c-4a6e-9f1a-3c1b7e9d4a10';
export const WEB = '7f1c9e22-8d3b-4c55-a1e0-6b2f0c8d9e31';
export const DB = 'b85f975f-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

export function agent(dir: string, ...args: string[]): void {
  const r = spawnSync(process.execPath, [AGENT, dir, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
}

export function task(dir: string, id: string, subject: string, status: string, over: Record<string, unknown> = {}): void {
  writeTask(dir, { id, subject, description: '', status, blocks: [], blockedBy: [], ...over });
}

/** Three projects' sessions: the API one live and busy (its process is this test), one ended, one crashed. */
export function world(): { config: string; api: string; home: string } {
  const config = tempConfig();
  const home = path.join(config, 'home');
  const cwd = (p: string) => {
    const dir = path.join(home, 'work', p);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  };
  const now = Date.now();
  writeTranscript(config, {
    sessionId: API,
    cwd: cwd('api'),
    branch: 'feat/rate-limit',
    prompt: 'add rate limiting to the public API, with tests and docs',
    start: now - 40 * 60_000,
    end: now - 5_000,
  });
  writeLiveSession(config, {
    pid: process.pid,
    sessionId: API,
    cwd: path.join(home, 'work', 'api'),
    status: 'busy',
    name: 'api-rate-limit',
  });
  writeTranscript(config, {
    sessionId: WEB,
    cwd: cwd('web'),
    branch: 'main',
    prompt: 'fix the flaky login tests',
    start: now - 3 * 3600_000,
    end: now - 2 * 3600_000,
  });
  writeTranscript(config, {
    sessionId: DB,
    cwd: cwd('db'),
    branch: 'refactor/pool',
    prompt: 'refactor the database connection pool',
    start: now - 26 * 3600_000,
    end: now - 25 * 3600_000,
  });
  writeLiveSession(config, { pid: 4_000_123, sessionId: DB, cwd: path.join(home, 'work', 'db'), procStartTicks: '1', status: 'busy' });
  const api = path.join(config, 'tasks', API);
  task(api, '1', 'Analyse the API gateway', 'completed', { owner: 'researcher', blocks: ['3', '4'] });
  task(api, '2', 'Design the rate-limit policy', 'completed', { owner: 'researcher', blocks: ['3'] });
  task(api, '3', 'Implement token bucket middleware', 'in_progress', {
    owner: 'coder',
    activeForm: 'Implementing token bucket middleware',
    blocks: ['5'],
    blockedBy: ['1', '2'],
    description: 'Per API key, 100 requests a minute by default.\nReturn 429 with Retry-After.',
  });
  task(api, '4', 'Add Redis-backed counters', 'in_progress', {
    owner: 'coder-2',
    activeForm: 'Adding Redis-backed counters',
    blocks: ['5'],
    blockedBy: ['1'],
    metadata: { priority: 'high' },
  });
  task(api, '5', 'Write integration tests', 'pending', { blocks: ['6', '9'], blockedBy: ['3', '4'] });
  task(api, '6', 'Load-test with k6', 'pending', { blocks: ['9'], blockedBy: ['5'] });
  task(api, '7', 'Document the limits in the README', 'pending');
  task(api, '8', 'Update the changelog', 'pending', { blockedBy: ['7'] });
  fs.writeFileSync(path.join(api, '7.json'), JSON.stringify({ ...(readJson(path.join(api, '7.json')) as object), blocks: ['8'] }, null, 2));
  task(api, '9', 'Roll out behind a feature flag', 'pending', { blockedBy: ['5', '6'] });
  const web = path.join(config, 'tasks', WEB);
  task(web, '1', 'Reproduce the flaky login test', 'completed', { owner: 'tester' });
  task(web, '2', 'Fix the race in the session cookie', 'completed', { owner: 'tester' });
  task(web, '3', 'Run the suite 50 times', 'completed', { owner: 'tester' });
  const db = path.join(config, 'tasks', DB);
  task(db, '1', 'Map every pool user', 'completed', { owner: 'worker-1' });
  task(db, '2', 'Move to one shared pool', 'in_progress', { owner: 'worker-1', activeForm: 'Moving to one shared pool' });
  task(db, '3', 'Measure connections under load', 'pending', { blockedBy: ['2'] });
  fs.writeFileSync(path.join(db, '2.json'), JSON.stringify({ ...(readJson(path.join(db, '2.json')) as object), blocks: ['3'] }, null, 2));
  return { config, api, home };
}

export async function until<T>(what: string, check: () => T | undefined | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const fileOf = (dir: string, id: string) =>
  readJson(path.join(dir, `${id}.json`)) as { status: string; owner?: string; blockedBy: string[]; blocks: string[] };
