import { describe, expect, it } from 'vitest';
import type { ListRow } from '../../src/render/lists-table.js';
import { renderListsTable, renderUnsureSessions } from '../../src/render/lists-table.js';
import { PLAIN } from '../../src/render/style.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');

function row(id: string, extra: Partial<ListRow> = {}): ListRow {
  return {
    id,
    shortId: id.slice(0, 8),
    dir: `/c/tasks/${id}`,
    counts: { pending: 1, in_progress: 1, completed: 2 },
    total: 4,
    problems: 0,
    changedAt: NOW - 5 * 60_000,
    kind: 'tasks',
    sessions: [
      {
        sessionId: id,
        state: 'ended',
        cwd: '/home/me/work/clients/acme/services/billing-api',
        branch: 'feature/very-long-branch-name-for-billing',
        prompt: 'refactor the invoice generator so that it handles multiple currencies',
        replacedBy: '7c1e2f30-1111-4a4a-8b8b-000000000002',
        clearProof: 'transcripts',
      },
    ],
    team: { name: 'billing-crew', members: ['lead', 'alice', 'bob', 'carol', 'dave'] },
    ...extra,
  };
}

describe('tasks lists in a terminal', () => {
  it("a fork's PROMPT says whose fork it is, then its own last prompt", () => {
    const fork = row('acebfa33-89bc-4c46-ae49-f0564e9fb3fa', { team: undefined });
    fork.sessions = [
      {
        sessionId: fork.id,
        state: 'ended',
        cwd: '/home/me/work',
        prompt: 'follow the plan',
        lastPrompt: 'ship the release',
        forkOf: 'b662d4b4-5673-4d15-a9d3-6dd961fcbf2e',
      },
    ];
    const lines = renderListsTable([fork], { style: PLAIN, now: NOW, width: 120, home: '/home/me' }).split('\n');
    expect(lines[1]).toMatch(/^acebfa33\s+~\/work\s+ended\s+fork of b662d4b4: ship the release\s+2\/4 ▶1\s+5 min ago$/);
  });

  it('at 80 columns keeps LIST, SESSION, TASKS and CHANGED: branch and team give way, the project is cut to its end', () => {
    const rows = [row('2d483082-5eaa-461a-bfdf-3e104fbfeff7'), row('9c0ffee0-2222-4a4a-8b8b-000000000003')];
    const text = renderListsTable(rows, { style: PLAIN, now: NOW, width: 80, home: '/home/me' });
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^LIST\s+PROJECT\s+SESSION\s+PROMPT\s+TASKS\s+CHANGED$/);
    expect(lines[1]).toMatch(/^2d483082\s+….*billing-api\s+cleared → 7c1e2f30\s+refactor.*\s2\/4 ▶1\s+5 min ago$/);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
  });

  it('narrower still, the project goes before the prompt, and the prompt before TASKS and CHANGED', () => {
    const at = (width: number) =>
      renderListsTable([row('2d483082-5eaa-461a-bfdf-3e104fbfeff7')], { style: PLAIN, now: NOW, width, home: '/home/me' });
    expect(at(68).split('\n')[0]).toMatch(/^LIST\s+SESSION\s+PROMPT\s+TASKS\s+CHANGED$/);
    expect(at(68).split('\n')[1]).toMatch(/cleared → 7c1e2f30\s+refactor the i/);
    const text = at(50);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^LIST\s+SESSION\s+TASKS\s+CHANGED$/);
    expect(lines[1]).toMatch(/2\/4 ▶1\s+5 min ago$/);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60);
  });

  it('a list named at length (a CI job naming lists by branch and commit) is cut, so that TASKS and CHANGED stay', () => {
    const long = `build-${'feature-very-long-branch-name-'.repeat(4)}0123456789abcdef`;
    const named = row(long, { shortId: long, team: undefined, sessions: [] });
    const lines = renderListsTable([named, row('2d483082-5eaa-461a-bfdf-3e104fbfeff7', { team: undefined, sessions: [] })], {
      style: PLAIN,
      now: NOW,
      width: 80,
      home: '/home/me',
    }).split('\n');
    expect(lines[0]).toMatch(/^LIST\s+TASKS\s+CHANGED$/);
    expect(lines[1]).toMatch(/^build-feature-very-long-branch-name-.*…\s+2\/4 ▶1\s+5 min ago$/);
    expect(lines[2]).toMatch(/^2d483082\s+2\/4 ▶1\s+5 min ago$/);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
  });

  it('at 80 columns, lists of every kind with long projects still show a short prompt', () => {
    const project = { cwd: '/home/me/src/acme/web-frontend-monorepo', branch: 'main' };
    const rows = [
      row('9083d175-0cde-42b2-a8be-6c82cc148d31', {
        kind: 'new',
        sessions: [
          {
            sessionId: '9083d175-0cde-42b2-a8be-6c82cc148d31',
            state: 'live',
            activity: 'busy',
            ...project,
            prompt: 'fix the login redirect loop',
          },
        ],
        team: undefined,
      }),
      row('4fd7da51-cdae-4fc2-986d-ae257ab128a8', {
        sessions: [
          {
            sessionId: '4fd7da51-cdae-4fc2-986d-ae257ab128a8',
            state: 'ended',
            ...project,
            prompt: 'add the checkout page',
            replacedBy: '9083d175-0cde-42b2-a8be-6c82cc148d31',
            clearProof: 'transcripts',
          },
        ],
        team: undefined,
      }),
      row('6f17b12c-bc7a-489b-a022-cbc0d7f2888c', {
        kind: 'todowrite',
        sessions: [{ sessionId: '6f17b12c-bc7a-489b-a022-cbc0d7f2888c', state: 'ended', ...project, prompt: 'outline the docs' }],
        team: undefined,
      }),
    ];
    const lines = renderListsTable(rows, { style: PLAIN, now: NOW, width: 80, home: '/home/me' }).split('\n');
    expect(lines[0]).toMatch(/^LIST\s+SESSION\s+PROMPT\s+TASKS\s+CHANGED$/);
    expect(lines[1]).toMatch(/ fix the l/);
    expect(lines[2]).toMatch(/ add the c/);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
  });

  it('lists that sessions worked on, which their transcripts cannot tell apart, are named in one line', () => {
    const unsure = [{ sessionId: 'aaaaaaaa-1111-4a4a-8b8b-000000000001' }, { sessionId: 'bbbbbbbb-1111-4a4a-8b8b-000000000002' }];
    const lines = renderUnsureSessions([
      row('build-201', { shortId: 'build-201', sessions: [], unsure: unsure as ListRow['sessions'] }),
      row('build-202', { shortId: 'build-202', sessions: [], unsure: unsure as ListRow['sessions'] }),
      row('other', { shortId: 'other' }),
    ]);
    expect(lines).toEqual([
      'build-201, build-202: sessions aaaaaaaa, bbbbbbbb may have worked on them (they hold the same tasks, written at the same moments); which on which, the transcripts cannot tell: not shown as their sessions',
    ]);
  });

  it('hundreds of such sessions on dozens of lists still make one short line, pointing to --json for the rest', () => {
    const unsure = Array.from({ length: 300 }, (_, i) => ({ sessionId: `${i.toString(16).padStart(8, '0')}-1111-4a4a-8b8b-000000000001` }));
    const lines = renderUnsureSessions(
      Array.from({ length: 50 }, (_, i) =>
        row(`shared-${i}`, { shortId: `shared-${i}`, sessions: [], unsure: unsure as ListRow['sessions'] }),
      ),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^shared-0, shared-1, shared-2, shared-3, shared-4 and 45 more: sessions 00000000, 00000001, 00000002, 00000003, 00000004, 00000005 and 294 more may have worked on them /,
    );
    expect(lines[0]).toMatch(/; tasks lists --json names them all \(unsureSessions\)$/);
    expect(lines[0]?.length).toBeLessThan(400);
  });
});
