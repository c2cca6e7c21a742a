import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';

/**
 * Empty values where a command needs something: a clear one-line usage error (exit 2),
 * nothing written, never a silent success that did nothing. The built binary is run.
 */
describe('empty ids and keys, numbers JSON cannot hold', () => {
  const files = (config: string) => {
    const dir = path.join(config, 'tasks', 'x');
    return Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
  };
  const list = () => {
    const config = tempConfig();
    const r = run(config, ['-l', 'x', 'create', 'Fix'], { cwd: os.tmpdir() });
    expect(r.code).toBe(0);
    return config;
  };

  it.each([
    [['delete', ''], /^error: delete needs at least one task id$/],
    [['delete', ','], /^error: delete needs at least one task id$/],
    [['delete', '--yes', ' '], /^error: delete needs at least one task id$/],
    [['update', '1', '--unset-meta', ''], /^error: invalid --unset-meta "": expected a metadata key$/],
    [['update', '1', '--unset-meta', 'k', '--unset-meta', ' '], /^error: invalid --unset-meta " ": expected a metadata key$/],
    [
      ['update', '1', '--meta', 'n:=1e999'],
      /^error: invalid --meta "n:=1e999": a number too large for JSON \(it would be written as null\)$/,
    ],
    [['update', '1', '--meta', 'n:=[1,{"a":-1e400}]'], /^error: invalid --meta "n:=\[1,\{"a":-1e400\}\]": a number too large for JSON/],
    [['create', 'Other', '--meta', 'n:=1e999'], /^error: invalid --meta "n:=1e999": a number too large for JSON/],
    [['update', '1', '--meta', ' :=1'], /^error: invalid --meta " :=1": expected key=value or key:=<json>$/],
    [
      ['update', '1', '--meta', 'issue:=9007199254740993'],
      /^error: invalid --meta "issue:=9007199254740993": 9007199254740993 is a whole number too large to be kept exactly \(it would be written as 9007199254740992\); for text, give issue=9007199254740993$/,
    ],
    [
      ['create', 'Other', '--meta', 'ids:=[1, -123456789012345678901]'],
      /^error: invalid --meta "ids:=\[1, -123456789012345678901\]": -123456789012345678901 is a whole number too large/,
    ],
    [['import', ''], /^error: the input file name is empty: name a file, or - for stdin$/],
    [['import', ' '], /^error: the input file name is empty: name a file, or - for stdin$/],
    [['update', '1', '--subject', 'New', '--if-status', ''], /^error: --if-status needs at least one status$/],
    [['delete', '1', '--if-status', 'pending', '--if-status', ','], /^error: --if-status needs at least one status$/],
    [['list', '--status', ''], /^error: --status needs at least one status$/],
    [['update', '1', '--meta', ':=1'], /^error: invalid --meta ":=1": expected key=value or key:=<json>$/],
    [['update', '1', '--meta', ':='], /^error: invalid --meta ":=": expected key=value or key:=<json>$/],
    [['create', 'Other', '--meta', ':={"a":1}'], /^error: invalid --meta ":=\{"a":1\}": expected key=value or key:=<json>$/],
  ])('tasks %j: exit 2, one line, nothing written', (args, message) => {
    const config = list();
    const before = files(config);
    const r = run(config, ['-l', 'x', ...args], { cwd: os.tmpdir() });
    expect(r.stderr.trim()).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(files(config)).toEqual(before);
  });
});

/**
 * An id list option given an empty value (an empty variable in a script: `--blocked-by "$DEP"`)
 * asked for a dependency and named none: a usage error, never a task made or changed without
 * the dependency that was meant.
 */
describe('metadata keys holding a colon', () => {
  it('a key may hold colons: "a:b:=1" sets a:b to the number 1, and a value may hold ":="', () => {
    const config = tempConfig();
    expect(run(config, ['-l', 'x', 'create', 'Fix'], { cwd: os.tmpdir() }).code).toBe(0);
    const r = run(config, ['-l', 'x', 'update', '1', '--meta', 'a:b:=1', '--meta', 'url=http://h:=x'], { cwd: os.tmpdir() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const task = JSON.parse(fs.readFileSync(path.join(config, 'tasks', 'x', '1.json'), 'utf8'));
    expect(task.metadata).toEqual({ 'a:b': 1, url: 'http://h:=x' });
  });
});

/** `--meta " k=1"` sets k (the key trimmed); `--unset-meta " k"` names the same key, never another one. */
describe('metadata keys with blanks around them', () => {
  const metadata = (config: string) => JSON.parse(fs.readFileSync(path.join(config, 'tasks', 'x', '1.json'), 'utf8')).metadata;

  it('--unset-meta " k" removes the key --meta " k=1" set', () => {
    const config = tempConfig();
    expect(run(config, ['-l', 'x', 'create', 'Fix'], { cwd: os.tmpdir() }).code).toBe(0);
    expect(run(config, ['-l', 'x', 'update', '1', '--meta', ' k=1', '--meta', 'other=2'], { cwd: os.tmpdir() }).code).toBe(0);
    expect(metadata(config)).toEqual({ k: '1', other: '2' });
    const r = run(config, ['-l', 'x', 'update', '1', '--unset-meta', ' k'], { cwd: os.tmpdir() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(metadata(config)).toEqual({ other: '2' });
  });

  it('--meta k=v with --unset-meta " k" is the same key set and removed: exit 2, nothing written', () => {
    const config = tempConfig();
    expect(run(config, ['-l', 'x', 'create', 'Fix', '--meta', 'k=1'], { cwd: os.tmpdir() }).code).toBe(0);
    const before = fs.readFileSync(path.join(config, 'tasks', 'x', '1.json'), 'utf8');
    const r = run(config, ['-l', 'x', 'update', '1', '--meta', 'k=2', '--unset-meta', ' k '], { cwd: os.tmpdir() });
    expect(r.stderr.trim()).toBe('error: --meta k and --unset-meta k given together: give one');
    expect(r.code).toBe(2);
    expect(fs.readFileSync(path.join(config, 'tasks', 'x', '1.json'), 'utf8')).toBe(before);
  });
});

describe('id list options given no id', () => {
  const files = (config: string) => {
    const dir = path.join(config, 'tasks', 'x');
    return Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
  };
  const list = () => {
    const config = tempConfig();
    for (const subject of ['Fix', 'Test']) expect(run(config, ['-l', 'x', 'create', subject], { cwd: os.tmpdir() }).code).toBe(0);
    return config;
  };

  it.each([
    [['create', 'Other', '--blocked-by', ''], /^error: --blocked-by needs at least one task id$/],
    [['create', 'Other', '--blocked-by', ' , '], /^error: --blocked-by needs at least one task id$/],
    [['create', 'Other', '--blocks', ''], /^error: --blocks needs at least one task id$/],
    [['create', 'Other', '--blocked-by', '1', '--blocked-by', ''], /^error: --blocked-by needs at least one task id$/],
    [['update', '1', '--subject', 'New', '--add-blocked-by', ''], /^error: --add-blocked-by needs at least one task id$/],
    [['update', '1', '--add-blocked-by', ','], /^error: --add-blocked-by needs at least one task id$/],
    [['update', '1', '--subject', 'New', '--add-blocks', ''], /^error: --add-blocks needs at least one task id$/],
    [['update', '1', '--add-blocks', '2', '--add-blocks', ' '], /^error: --add-blocks needs at least one task id$/],
    [['block', '1', '--by', '2', '--by', ''], /^error: --by needs at least one task id$/],
    [['unblock', '1', '--by', '2', '--by', ''], /^error: --by needs at least one task id \(leave --by out to remove every blocker\)$/],
    // "$A,$B" with one of them empty: the dependency it named is lost all the same.
    [['create', 'Other', '--blocked-by', '1,,2'], /^error: --blocked-by "1,,2" holds an empty id \(an empty variable\?\)$/],
    [['create', 'Other', '--blocks', ',2'], /^error: --blocks ",2" holds an empty id \(an empty variable\?\)$/],
    [['update', '1', '--add-blocked-by', '2,'], /^error: --add-blocked-by "2," holds an empty id \(an empty variable\?\)$/],
    [['block', '1', '--by', '2, '], /^error: --by "2, " holds an empty id \(an empty variable\?\)$/],
  ])('tasks %j: exit 2, one line, nothing written', (args, message) => {
    const config = list();
    const before = files(config);
    const r = run(config, ['-l', 'x', ...args], { cwd: os.tmpdir() });
    expect(r.stderr.trim()).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(files(config)).toEqual(before);
  });
});

/**
 * Task ids given as arguments with an empty one between their commas (`delete "$A,$B"` with B
 * empty) or an argument that is empty: fewer tasks named than the script meant, refused as the
 * id options refuse it rather than acting on the others (or, for release, on every task of --owner).
 */
describe('id arguments holding an empty id', () => {
  const tree = (config: string) => {
    const root = path.join(config, 'tasks');
    return Object.fromEntries(
      fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).map((f) => {
        const file = path.join(root, f);
        return [f, fs.statSync(file).isFile() ? fs.readFileSync(file, 'utf8') : 'dir'];
      }),
    );
  };
  const lists = () => {
    const config = tempConfig();
    for (const list of ['x', 'y'])
      for (const subject of ['Fix', 'Test']) expect(run(config, ['-l', list, 'create', subject], { cwd: os.tmpdir() }).code).toBe(0);
    expect(run(config, ['-l', 'x', 'update', '1', '--owner', 'w'], { cwd: os.tmpdir() }).code).toBe(0);
    return config;
  };

  it.each([
    [['delete', '-y', '1,,2'], /^error: delete "1,,2" holds an empty id \(an empty variable\?\)$/],
    [['delete', '-y', '2,'], /^error: delete "2," holds an empty id \(an empty variable\?\)$/],
    [['delete', '-y', '1', ''], /^error: delete "" holds an empty id \(an empty variable\?\)$/],
    [['delete', '-y', '--dry-run', ',1'], /^error: delete ",1" holds an empty id \(an empty variable\?\)$/],
    [['release', '1,'], /^error: release "1," holds an empty id \(an empty variable\?\)$/],
    [['release', '', '--owner', 'w'], /^error: release "" holds an empty id \(an empty variable\?\)$/],
    [['carry', '--from', 'y', '1,,2'], /^error: carry "1,,2" holds an empty id \(an empty variable\?\)$/],
    [['carry', '--from', 'y', ''], /^error: carry "" holds an empty id \(an empty variable\?\)$/],
  ])('tasks %j: exit 2, one line, nothing changed', (args, message) => {
    const config = lists();
    const before = tree(config);
    const r = run(config, ['-l', 'x', ...args], { cwd: os.tmpdir() });
    expect(r.stderr.trim()).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(tree(config)).toEqual(before);
  });
});

/** An input file with a number JSON cannot write: refused as --meta n:=1e999 is, not imported as null. */
describe('import of a number too large for JSON', () => {
  it.each([
    ['in its metadata', '"metadata": {"n": 1e999}', 'metadata'],
    ['deep in its metadata', '"metadata": {"a": [1, {"b": -1e999}]}', 'metadata'],
    ['in a key of its own', '"estimate": 1e999', 'estimate'],
  ])('a task with one %s: exit 2, one line, nothing written', (_what, extra, key) => {
    const config = tempConfig();
    expect(run(config, ['-l', 'x', 'create', 'Fix'], { cwd: os.tmpdir() }).code).toBe(0);
    const dir = path.join(config, 'tasks', 'x');
    const before = fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]);
    const input = path.join(config, 'in.json');
    fs.writeFileSync(
      input,
      `[{"id": "7", "subject": "big", "description": "", "status": "pending", "blocks": [], "blockedBy": [], ${extra}}]`,
    );
    const r = run(config, ['-l', 'x', 'import', input], { cwd: os.tmpdir() });
    expect(r.stderr.trim()).toMatch(
      new RegExp(`^error: .*in\\.json: item 1: ${key}: a number too large for JSON \\(it would be written as null\\)$`),
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')])).toEqual(before);
  });
});

/**
 * What `create` refuses, `import` refuses too: a task with an empty subject (agents cannot
 * make one), and a whole number too large to be kept exactly (`"n": 12345678901234567890` would
 * be written as 12345678901234567000, as `--meta n:=...` is refused for). One line naming
 * the file, the task and the field; exit 2; nothing written.
 */
describe('import of a task create would refuse', () => {
  const task = (id: string, extra = '', subject = `"task ${id}"`) =>
    `{"id": "${id}", "subject": ${subject}, "description": "", "status": "pending", "blocks": [], "blockedBy": []${extra}}`;
  const big = '12345678901234567890 is a whole number too large to be kept exactly \\(it would be written as 12345678901234567000\\)';

  it.each([
    ['an empty subject', `[${task('7', '', '""')}]`, 'item 1: subject: must not be empty'],
    ['a blank subject, in JSON Lines', `${task('7')}\n${task('8', '', '"  "')}\n`, 'line 2: subject: must not be empty'],
    ['one task alone with an empty subject', task('7', '', '""'), 'the task: subject: must not be empty'],
    ['a 20-digit number in its metadata', `[${task('7', ', "metadata": {"n": 12345678901234567890}')}]`, `item 1: metadata: ${big}`],
    [
      'one deep in the second task',
      `[${task('7')}, ${task('8', ', "metadata": {"a": [1, {"b": 12345678901234567890}]}')}]`,
      `item 2: metadata: ${big}`,
    ],
    [
      'one in a key of its own, in JSON Lines',
      `${task('7')}\n${task('8', ', "estimate": -123456789012345678901')}\n`,
      'line 2: estimate: -123456789012345678901 is a whole number too large to be kept exactly',
    ],
    ['a todo with empty content', '[{"content": "", "status": "pending", "activeForm": "Doing"}]', 'item 1: content: must not be empty'],
    [
      'a TodoWrite input with a blank todo',
      '{"todos": [{"content": "a", "status": "pending", "activeForm": "A"}, {"content": " ", "status": "pending", "activeForm": "B"}]}',
      'todos\\[1\\]\\.content: must not be empty',
    ],
  ])('%s: exit 2, one line, nothing written', (_what, text, message) => {
    const config = tempConfig();
    expect(run(config, ['-l', 'x', 'create', 'Fix'], { cwd: os.tmpdir() }).code).toBe(0);
    const dir = path.join(config, 'tasks', 'x');
    const before = fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]);
    const input = path.join(config, 'in.json');
    fs.writeFileSync(input, text);
    const r = run(config, ['-l', 'x', 'import', input], { cwd: os.tmpdir() });
    expect(r.stderr.trim()).toMatch(new RegExp(`^error: .*in\\.json: ${message}`));
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')])).toEqual(before);
  });

  it('a large whole number kept exactly (2^53), and 20 digits as text, are imported as they are', () => {
    const config = tempConfig();
    const input = path.join(config, 'in.json');
    fs.writeFileSync(input, `[${task('7', ', "metadata": {"n": 9007199254740992, "id": "12345678901234567890", "x": 1.5e300}')}]`);
    const r = run(config, ['-l', 'x', 'import', input], { cwd: os.tmpdir() });
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
    const written = fs.readFileSync(path.join(config, 'tasks', 'x', '7.json'), 'utf8');
    expect(JSON.parse(written).metadata).toEqual({ n: 9007199254740992, id: '12345678901234567890', x: 1.5e300 });
  });
});

/**
 * A large whole number that JSON.stringify itself wrote (`12345678901234567000`, as an agent's
 * task file or `tasks export` holds it; `1e+23` written out in digits) is written back as the
 * same number: nothing is lost, so nothing is refused. Only a number written back as another
 * (`12345678901234567890` as ...7000) is.
 */
describe('a large whole number that is kept as it is', () => {
  const task = (extra: string) =>
    `{"id": "7", "subject": "task 7", "description": "", "status": "pending", "blocks": [], "blockedBy": []${extra}}`;

  it.each([['12345678901234567000'], ['-12345678901234567000'], ['100000000000000000000000']])(
    '%s: --meta n:=, import and use take it, and write the same number',
    (n) => {
      const config = tempConfig();
      expect(run(config, ['-l', 'x', 'create', 'Fix'], { cwd: os.tmpdir() }).code).toBe(0);
      const meta = run(config, ['-l', 'x', 'update', '1', '--meta', `n:=${n}`], { cwd: os.tmpdir() });
      expect(meta.stderr).toBe('');
      expect(meta.code).toBe(0);
      const read = (id: string) => JSON.parse(fs.readFileSync(path.join(config, 'tasks', 'x', `${id}.json`), 'utf8')).metadata.n;
      expect(read('1')).toBe(Number(n));

      const input = path.join(config, 'in.jsonl');
      fs.writeFileSync(input, `${task(`, "metadata": {"n": ${n}}`)}\n`);
      const imported = run(config, ['-l', 'x', 'import', input], { cwd: os.tmpdir() });
      expect(imported.stderr).not.toMatch(/error/);
      expect(imported.code).toBe(0);
      expect(read('7')).toBe(Number(n));

      const project = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-use-number-'));
      fs.mkdirSync(path.join(project, '.claude'));
      const file = path.join(project, '.claude', 'settings.local.json');
      fs.writeFileSync(file, `{\n  "build": ${n}\n}\n`);
      const used = run(config, ['use', 'x'], { cwd: project });
      expect(used.stderr).not.toMatch(/error/);
      expect(used.code).toBe(0);
      expect(JSON.parse(fs.readFileSync(file, 'utf8')).build).toBe(Number(n));
    },
  );

  it('a list holding one goes through export and import whole', () => {
    const config = tempConfig();
    expect(run(config, ['-l', 'x', 'create', 'Fix'], { cwd: os.tmpdir() }).code).toBe(0);
    // As an agent writes it: JSON.stringify of the number it was given.
    const file = path.join(config, 'tasks', 'x', '1.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), metadata: { n: Number('12345678901234567890') } }),
    );
    const exported = path.join(config, 'out.jsonl');
    expect(run(config, ['-l', 'x', 'export', '--format', 'jsonl', '--output', exported]).code).toBe(0);
    const r = run(config, ['-l', 'y', 'import', exported], { cwd: os.tmpdir() });
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
  });
});

/**
 * An option's value that is another option of the command (`--owner $WHO --no-notify` with WHO
 * empty and unquoted): the option was given no value, and the next flag would be written as
 * the owner, the subject or the agent. A usage error, nothing written.
 */
describe('an option given another option as its value', () => {
  const files = (config: string) => {
    const dir = path.join(config, 'tasks', 'x');
    return Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
  };

  it.each([
    [['update', '1', '--owner', '--no-notify'], '--owner', '--no-notify'],
    [['update', '1', '--subject', '--no-hooks'], '--subject', '--no-hooks'],
    [['create', 'Other', '--owner', '--no-hooks'], '--owner', '--no-hooks'],
    [['create', 'Other', '-d', '--no-notify'], '-d, --description', '--no-notify'],
    [['claim', '1', '--as', '--start'], '--as', '--start'],
    [['update', '1', '--meta', 'k=v', '--active-form', '--if-unowned'], '--active-form', '--if-unowned'],
    [['update', '1', '--if-owner', '--if-unowned', '--subject', 'New'], '--if-owner', '--if-unowned'],
  ])('tasks %j: exit 2, one line, nothing written', (args, option, value) => {
    const config = tempConfig();
    expect(run(config, ['-l', 'x', 'create', 'Fix'], { cwd: os.tmpdir() }).code).toBe(0);
    const before = files(config);
    const r = run(config, ['-l', 'x', ...args], { cwd: os.tmpdir() });
    const flag = option.split(', ').at(-1) as string;
    expect(r.stderr.trim()).toBe(`error: ${flag} was given no value: "${value}" is an option (an empty variable before it?)`);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(files(config)).toEqual(before);
  });

  it('a value that only starts like an option is a value: --subject "--verbose breaks the build"', () => {
    const config = tempConfig();
    expect(run(config, ['-l', 'x', 'create', 'Fix'], { cwd: os.tmpdir() }).code).toBe(0);
    const r = run(config, ['-l', 'x', 'update', '1', '--subject', '--verbose breaks the build'], { cwd: os.tmpdir() });
    expect(r.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(config, 'tasks', 'x', '1.json'), 'utf8')).subject).toBe('--verbose breaks the build');
  });
});

/**
 * `use` writes a project's settings file back whole: a number JSON.parse cannot keep (a user's
 * `1e999`, a 20-digit id) would come back as null or as another number. The file is left as it is.
 */
describe('use on a settings file holding a number it cannot write back', () => {
  it.each([
    ['"limit": 1e999', 'null'],
    ['"build": 12345678901234567890', '12345678901234567000'],
  ])('%s: exit 2, one line, the file unchanged', (entry) => {
    const config = tempConfig();
    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-use-number-'));
    fs.mkdirSync(path.join(project, '.claude'));
    const file = path.join(project, '.claude', 'settings.local.json');
    const text = `{\n  ${entry},\n  "env": {"FOO": "1"}\n}\n`;
    fs.writeFileSync(file, text);
    const r = run(config, ['use', 'x'], { cwd: project });
    expect(r.stderr.trim()).toMatch(
      /^error: .*settings\.local\.json holds a number that would not be written back as it is \(.*\); tasks leaves it as it is$/,
    );
    expect(r.code).toBe(2);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('an empty active form', () => {
  it('create --active-form "" writes none, as update --active-form "" removes it', () => {
    const config = tempConfig();
    const r = run(config, ['-l', 'x', 'create', 'Fix', '--active-form', ''], { cwd: os.tmpdir() });
    expect(r.code).toBe(0);
    const task = JSON.parse(fs.readFileSync(path.join(config, 'tasks', 'x', '1.json'), 'utf8'));
    expect(Object.keys(task)).toEqual(['id', 'subject', 'description', 'status', 'blocks', 'blockedBy']);
  });
});
