/**
 * History on a machine whose clock went back: a change recorded while the clock ran ahead
 * (a VM resumed, NTP stepping the clock back) bears a later time than the changes made after
 * it. The journal's order is the writes' order; log must keep it, not the times written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

const ENV = { USER: 'alice' };
const listDir = (config: string) => path.join(config, 'tasks', 'L');
const journal = (config: string) => path.join(listDir(config), '.tasks-journal.jsonl');
const t = (config: string, ...args: string[]) => runInProcessSync(config, ['-l', 'L', ...args], { env: ENV });

/** The journal's last line and its task file dated `ahead` ms later, as a clock running ahead wrote them. */
function recordedAhead(config: string, id: string, ahead: number): void {
  const lines = fs.readFileSync(journal(config), 'utf8').trimEnd().split('\n');
  const last = JSON.parse(lines.at(-1) as string) as { at: string };
  const at = new Date(Date.parse(last.at) + ahead);
  last.at = at.toISOString();
  lines[lines.length - 1] = JSON.stringify(last);
  fs.writeFileSync(journal(config), `${lines.join('\n')}\n`);
  fs.utimesSync(path.join(listDir(config), `${id}.json`), at, at);
}

describe('log after the clock went back', () => {
  it('keeps the journal order: each change once, none told as unrecorded', () => {
    const config = tempConfig();
    t(config, 'create', 'A');
    t(config, 'update', '1', '--owner', 'bob');
    recordedAhead(config, '1', 365 * 24 * 3600_000);
    t(config, 'update', '1', '--owner', 'carol');
    t(config, 'update', '1', '--subject', 'A2');
    const log = t(config, 'log', '--json');
    expect(log.code, log.stderr).toBe(0);
    const events = JSON.parse(log.stdout) as Array<{
      op: string;
      cause?: string;
      changes: Record<string, { old?: unknown; new?: unknown }>;
    }>;
    expect(events.filter((e) => e.cause !== undefined)).toEqual([]);
    expect(events.map((e) => Object.entries(e.changes).map(([k, v]) => `${k}:${String(v.old)}>${String(v.new)}`))).toEqual([
      ['subject:undefined>A', 'description:undefined>', 'status:undefined>pending', 'blocks:undefined>', 'blockedBy:undefined>'],
      ['owner:undefined>bob'],
      ['owner:bob>carol'],
      ['subject:A>A2'],
    ]);
    // Every list's log merges the lists by time, and keeps each one's order all the same.
    t(config, '-l', 'M', 'create', 'other');
    const all = JSON.parse(t(config, 'log', '--all', '--json').stdout) as Array<{ list: string; changes: Record<string, unknown> }>;
    expect(all.filter((e) => e.list === 'L').map((e) => Object.keys(e.changes).join())).toEqual([
      'subject,description,status,blocks,blockedBy',
      'owner',
      'owner',
      'subject',
    ]);
    expect(all.some((e) => 'cause' in e)).toBe(false);
  });
});
