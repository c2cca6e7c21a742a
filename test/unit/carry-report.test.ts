import { describe, expect, it } from 'vitest';
import type { CarriedFrom, CarryOutcome } from '../../src/core/carry/carry-run.js';
import type { Task } from '../../src/core/store/schema.js';
import { carryWarnings, renderCarrySummary } from '../../src/render/carry-report.js';
import { listWords } from '../../src/render/new-list.js';

const A = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
const B = '7baec0ff-1111-4a4a-8b8b-000000000002';
const C = '9a0b1c2d-3333-4a4a-8b8b-000000000004';
// Sessions this config knows: A and B; C is a list named by a UUID that no session of it has.
const known = new Set([A, B]);
const shortId = (id: string) => (/^[0-9a-f]{8}-/.test(id) ? id.slice(0, 8) : id);
const words = (id: string) => listWords(shortId(id), known.has(id));

const task = (id: string, subject: string): Task => ({ id, subject, description: '', status: 'pending', blocks: [], blockedBy: [] });

/** One source, two tasks carried (#2 -> #1, #3 -> #2); `changed`: what changed on the way. */
function outcome(source: string, target: string, extra: Partial<CarriedFrom> = {}, others: CarryOutcome['others'] = []): CarryOutcome {
  const from = {
    source: { list: source, why: 'named' },
    sourceList: source,
    targetList: target,
    carried: [],
    dropped: [],
    left: { completed: 1, carriedBefore: 0, internal: 0 },
    copied: [],
    ids: { '2': '1', '3': '2' },
    changed: [],
    ...extra,
  } as unknown as CarriedFrom;
  return { target, dryRun: false, move: false, from: [from], created: [task('1', 'Build'), task('2', 'Ship')], others, warnings: [] };
}

describe('carry: lists named as the other commands name them', () => {
  it("a session's own list is the list of that session; a named list is quoted", () => {
    expect(renderCarrySummary(outcome(A, B), shortId, words).map((n) => n.text)).toEqual([
      'carried 2 tasks from the list of session 2d483082 into the list of session 7baec0ff (#1-#2); marked there as carried (metadata.carriedTo); left 1 completed',
    ]);
    expect(renderCarrySummary(outcome('from', 'to'), shortId, words).map((n) => n.text)).toEqual([
      'carried 2 tasks from list "from" into list "to" (#1-#2); marked there as carried (metadata.carriedTo); left 1 completed',
    ]);
    // A UUID-named list no session of this config has is a list of that name.
    expect(renderCarrySummary(outcome(C, 'to'), shortId, words)[0]?.text).toMatch(/^carried 2 tasks from list "9a0b1c2d" into list "to"/);
  });

  it('what a real run needs and the other lists with work say the list so too; the command to run keeps the short id', () => {
    const notes = renderCarrySummary(
      { ...outcome(A, 'to', { live: 'session 2d483082 is live' }, [{ list: B, unfinished: 3 }]), dryRun: true },
      shortId,
      words,
    );
    expect(notes.map((n) => [n.code, n.text])).toEqual([
      [
        'carry_summary',
        'dry run: would carry 2 tasks from the list of session 2d483082 into list "to" (#1-#2); marked there as carried (metadata.carriedTo); left 1 completed; nothing written',
      ],
      ['carry_needs_force', 'a real run needs --force: the list of session 2d483082 is in use by a live agent (session 2d483082 is live)'],
      ['carry_others', 'also unfinished: 3 tasks in the list of session 7baec0ff; tasks carry --from 7baec0ff brings them'],
    ]);
    // The facts keep the full ids.
    expect(notes.map((n) => n.facts?.list)).toEqual([A, A, B]);
  });

  it('a copy that stays names its list in words; a source task keeps its short list prefix', () => {
    const changed = [{ id: '3', why: 'changed while it was carried (now completed)', kept: { copy: '2', why: 'changed in its new list' } }];
    expect(carryWarnings(outcome(A, B, { changed }), shortId, words)).toEqual([
      '2d483082 #3 not carried: changed while it was carried (now completed); its copy #2 stays in the list of session 7baec0ff: changed in its new list',
    ]);
  });
});
