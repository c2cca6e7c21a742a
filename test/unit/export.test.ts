import { describe, expect, it } from 'vitest';
import { blockerAnswers, countTasks, indexTasks } from '../../src/core/graph/blockers.js';
import { toTodoWrite } from '../../src/core/snapshots/export-todowrite.js';
import { todoItemSchema } from '../../src/core/snapshots/todo-schema.js';
import type { Task } from '../../src/core/store/schema.js';
import { codeSpan, escapeMarkdown, renderMarkdownChecklist } from '../../src/render/export-markdown.js';

const task = (id: string, subject: string, extra: Partial<Task> = {}): Task => ({
  id,
  subject,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

describe('toTodoWrite', () => {
  it('subject -> content, activeForm kept or derived, status kept, order kept', () => {
    const { snapshot, warnings } = toTodoWrite([
      task('1', 'Fix auth bug', { status: 'completed' }),
      task('2', 'Refactor auth', { activeForm: 'Splitting auth.py', status: 'in_progress' }),
      task('3', 'Auth docs'),
    ]);
    expect(snapshot).toEqual({
      todos: [
        { content: 'Fix auth bug', status: 'completed', activeForm: 'Fixing auth bug' },
        { content: 'Refactor auth', status: 'in_progress', activeForm: 'Splitting auth.py' },
        { content: 'Auth docs', status: 'pending', activeForm: 'Working on Auth docs' },
      ],
    });
    expect(warnings).toEqual([]);
    for (const t of snapshot.todos) expect(todoItemSchema().safeParse(t).success).toBe(true);
  });

  it('says so when several are in progress, and names an empty subject', () => {
    const { snapshot, warnings } = toTodoWrite([task('1', 'A', { status: 'in_progress' }), task('4', '', { status: 'in_progress' })]);
    expect(snapshot.todos.map((t) => t.status)).toEqual(['in_progress', 'in_progress']);
    expect(snapshot.todos[1]).toEqual({ content: 'Task #4', status: 'in_progress', activeForm: 'Working on Task #4' });
    expect(warnings).toEqual([
      '#4 has an empty subject; exported as "Task #4" (TodoWrite requires content)',
      '2 tasks are in_progress (#1, #4); TodoWrite expects at most one, exported as they are',
    ]);
  });
});

describe('renderMarkdownChecklist', () => {
  it('a checklist with statuses, owners and dependencies; ids never bare', () => {
    const tasks = [
      task('1', 'Analyse code', { status: 'completed', owner: 'researcher', blocks: ['2'] }),
      task('2', 'Refactor *auth*', { status: 'in_progress', activeForm: 'Refactoring auth', blockedBy: ['1'], blocks: ['4'] }),
      task('4', 'Run tests', { blockedBy: ['2', '9'] }),
    ];
    const index = indexTasks(tasks);
    const list = { index, blockers: blockerAnswers(tasks, index), counts: countTasks(tasks, index) };
    expect(renderMarkdownChecklist(tasks, list, { title: 'Tasks: refactor-auth' })).toBe(
      [
        '### Tasks: refactor-auth',
        '',
        '**1/3 done** · 1 in progress · 1 pending (1 blocked)',
        '',
        '- [x] `#1` Analyse code — done · owner `researcher`',
        '- [ ] `#2` Refactor \\*auth\\* — in progress (Refactoring auth) · depends on `#1` (done)',
        '- [ ] `#4` Run tests — pending · blocked · depends on `#2` (in progress), `#9` (missing)',
      ].join('\n'),
    );
  });

  it('an empty list says so', () => {
    expect(
      renderMarkdownChecklist([], { index: new Map(), blockers: new Map(), counts: countTasks([], new Map()) }, { title: 'Tasks: x' }),
    ).toBe('### Tasks: x\n\n_No tasks._');
  });

  it('escapes what Markdown would interpret; code spans survive backticks', () => {
    expect(escapeMarkdown('<img src=x> [a](b) `c` _d_')).toBe('\\<img src=x\\> \\[a\\]\\(b\\) \\`c\\` \\_d\\_');
    expect(codeSpan('a`b')).toBe('`` a`b ``');
    expect(codeSpan('plain')).toBe('`plain`');
  });
});
