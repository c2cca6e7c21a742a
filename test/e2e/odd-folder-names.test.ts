/**
 * A folder under tasks/ whose name holds a newline, a tab or another control character
 * is no list; `lists` says it skipped it, with the name escaped as in JSON ("a\nb"), so
 * the person can tell it from "a b" and type it. Plain names are shown as they are.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';

describe('a folder name with control characters', () => {
  it('lists warns of it escaped, one line, and of "a b" as it is', () => {
    const config = tempConfig();
    for (const name of ['a\nb', 'a b', 'c\td', 'e\u202ef', 'ok']) fs.mkdirSync(path.join(config, 'tasks', name), { recursive: true });
    fs.writeFileSync(path.join(config, 'tasks', 'x\ny'), 'a file');
    const r = run(config, ['lists']);
    expect(r.code).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    const why = 'not a list agents can use (a list id is sanitized to [a-zA-Z0-9_-], so no list id names this folder)';
    expect(lines).toEqual([
      `warning: skipped "tasks/a\\nb": ${why}`,
      `warning: skipped tasks/a b: ${why}`,
      `warning: skipped "tasks/c\\td": ${why}`,
      `warning: skipped "tasks/e\\u202ef": ${why}`,
      'warning: skipped "tasks/x\\ny": a file, not a list folder',
    ]);
    const json = run(config, ['lists', '--json']);
    const messages = json.stderr
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { warning: { message: string } }).warning.message);
    expect(messages).toContain(`skipped "tasks/a\\nb": ${why}`);
  });
});
