import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inboxMessage, inboxPath } from '../../src/core/teams/inbox.js';
import { assignmentText, teamForList, teamMembers, unknownOwnerWarning } from '../../src/core/teams/teams.js';

function configWithTeam(dirName: string, config: unknown): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-teams-unit-'));
  fs.mkdirSync(path.join(root, 'teams', dirName), { recursive: true });
  fs.writeFileSync(path.join(root, 'teams', dirName, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  return root;
}

describe('teamForList', () => {
  it('finds the team whose sanitized name is the list id, members in order', () => {
    const config = configWithTeam('core', {
      name: 'core',
      members: [{ name: 'team-lead', agentId: 'team-lead@core' }, { name: 'alice' }, { bad: 1 }],
    });
    const team = teamForList(config, 'core');
    expect(team && teamMembers(team)).toEqual(['team-lead', 'alice']);
    expect(teamForList(config, 'other')).toBeUndefined();
  });

  it("matches names that sanitize to the list id, in Claude Code's folder or any other", () => {
    expect(teamForList(configWithTeam('my-team-x', { name: 'my.team/x', members: [] }), 'my-team-x')?.name).toBe('my.team/x');
    expect(teamForList(configWithTeam('hand-made', { name: 'Ops_1', members: [] }), 'Ops_1')?.name).toBe('Ops_1');
    // A folder of the right name whose config names another team is not it.
    expect(teamForList(configWithTeam('core', { name: 'elsewhere' }), 'core')).toBeUndefined();
    expect(teamForList(configWithTeam('core', '{broken'), 'core')).toBeUndefined();
  });
});

describe('unknownOwnerWarning', () => {
  const team = { name: 'core', dir: '/x', members: [{ name: 'team-lead' }, { name: 'alice' }] };
  it('is silent for members and for owners present in the list', () => {
    expect(unknownOwnerWarning('alice', [], team)).toBeUndefined();
    expect(unknownOwnerWarning('zed', [{ owner: 'zed' }], team)).toBeUndefined();
    expect(unknownOwnerWarning('zed', [{ owner: 'zed' }], undefined)).toBeUndefined();
  });
  it('names the members, or the owners, otherwise', () => {
    expect(unknownOwnerWarning('bob', [{ owner: 'zed' }], team)).toBe(
      '"bob" is not a member of team "core" (members: team-lead, alice) and owns no task here',
    );
    expect(unknownOwnerWarning('bob', [{ owner: 'zed' }, { owner: 'amy' }, {}], undefined)).toBe(
      'nobody named "bob" owns a task in this list (owners: amy, zed)',
    );
  });
});

describe('task_assignment messages', () => {
  it('text is the JSON TaskUpdate writes, in its key order', () => {
    const text = assignmentText({
      task: { id: '3', subject: 'Run tests', description: 'npm test' },
      owner: 'alice',
      assignedBy: 'team-lead',
      now: new Date('2026-01-02T03:04:05.678Z'),
    });
    expect(text).toBe(
      '{"type":"task_assignment","taskId":"3","subject":"Run tests","description":"npm test","assignedBy":"team-lead","timestamp":"2026-01-02T03:04:05.678Z"}',
    );
  });
  it("the envelope has the agents' keys in their order", () => {
    expect(Object.keys(inboxMessage('team-lead', 't', 'ts', 'id-1'))).toEqual([
      'from',
      'text',
      'timestamp',
      'msgV',
      'msg_id',
      'type',
      'read',
    ]);
    expect(inboxMessage('team-lead', 't', 'ts', 'id-1')).toEqual({
      from: 'team-lead',
      text: 't',
      timestamp: 'ts',
      msgV: 1,
      msg_id: 'id-1',
      type: 'message',
      read: false,
    });
  });
  it('inboxes are sanitized like list ids', () => {
    expect(inboxPath('/c', 'my.team', 'al/ice')).toBe(path.join('/c', 'teams', 'my-team', 'inboxes', 'al-ice.json'));
  });
});
