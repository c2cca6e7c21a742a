/**
 * A following `tasks notify` keeps what transcripts say between its looks (the persistent
 * cache, by each file's size, times and inode; a grown file is read from where the last
 * read stopped). What is appended to a transcript after a look is still seen: a solo agent
 * holding #1 in progress with no owner, alive at notify's first looks (its transcript was
 * written a minute ago), then ends (its transcript's last entry, appended to the same
 * file): the next look tells agent-died. Through the built binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempConfig } from '../helpers/cli.js';
import { listWith, notifyHarness, taskOf, until } from '../helpers/notify.js';
import { writeTaskTranscript } from '../helpers/task-transcript.js';

const h = notifyHarness();
afterEach(h.cleanup);

const SESSION = '5e551011-2222-4222-8222-00000000a11e';

/** Each message notify sent (NDJSON, one a line). */
function sent(out: string): Array<{ event: string; text: string; session?: string }> {
  if (!fs.existsSync(out)) return [];
  return fs
    .readFileSync(out, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

describe('notify reads what a transcript gained since its last look', () => {
  it('a solo agent that ends after the first looks is told as agent-died', async () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'work');
    fs.mkdirSync(cwd, { recursive: true });
    // Written a minute ago: live by its transcript (no live-session file), and settled, so
    // that what a look works out from it is kept and trusted until the file changes.
    const start = Date.now() - 60_000;
    const transcript = writeTaskTranscript(config, {
      sessionId: SESSION,
      cwd,
      start,
      calls: [{ create: { id: '1', subject: 'Fix it' } }, { update: { taskId: '1', status: 'in_progress' } }],
      ended: false,
    });
    const lastEntry = Math.max(
      ...[...fs.readFileSync(transcript, 'utf8').matchAll(/"timestamp":"([^"]+)"/g)].map((m) => Date.parse(m[1] as string)),
    );
    fs.utimesSync(transcript, lastEntry / 1000, lastEntry / 1000);
    const dir = listWith(config, 'solo', [taskOf('1', { subject: 'Fix it', status: 'in_progress' })]);
    fs.utimesSync(path.join(dir, '1.json'), lastEntry / 1000, lastEntry / 1000);
    const inode = fs.statSync(transcript).ino;

    const out = path.join(config, 'sent.ndjson');
    const p = h.notify(config, ['-l', 'solo', '--on', 'agent-died', '--json', '--to', `exec:cat >> '${out}'`], {
      TASKS_NOTIFY_TICK_MS: '200',
    });
    await p.waitForErr('notify: following');
    // Several looks while the agent lives: nothing to tell.
    await new Promise((r) => setTimeout(r, 1500));
    expect(sent(out), p.stderr()).toEqual([]);

    // The agent ends: its last entries are appended to the same file.
    const end = Date.now();
    fs.appendFileSync(
      transcript,
      `${JSON.stringify({ type: 'assistant', sessionId: SESSION, cwd, timestamp: new Date(end).toISOString(), message: { role: 'assistant', content: [{ type: 'text', text: 'Stopping here.' }] } })}\n${JSON.stringify({ type: 'cost-state', sessionId: SESSION, costUSD: 0 })}\n`,
    );
    expect(fs.statSync(transcript).ino).toBe(inode);
    await until(() => sent(out).length > 0, 'agent-died', 15_000);
    expect(sent(out)).toMatchObject([
      { event: 'agent-died', session: SESSION, text: expect.stringMatching(/^session 5e551011 ended holding #1 in list solo /) },
    ]);
    // Told once.
    await new Promise((r) => setTimeout(r, 1000));
    expect(sent(out)).toHaveLength(1);
  });
});
