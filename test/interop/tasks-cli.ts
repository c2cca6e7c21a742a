import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { type Task, taskSchemas } from '../../src/core/store/schema.js';
import { type RunResult, runAsync } from '../helpers/cli.js';

/**
 * `tasks` as a user runs it (the built bin/tasks.js), against the list an agent uses.
 * Always asynchronous: the mock model answers agents from this same process.
 */
export class TasksCli {
  constructor(
    readonly config: string,
    readonly listId: string,
  ) {}

  get dir(): string {
    return path.join(this.config, 'tasks', this.listId);
  }

  run(...args: string[]): Promise<RunResult> {
    return runAsync(this.config, ['-l', this.listId, ...args]);
  }

  /** Run and require exit 0 with no error or warning on stderr (a summary may be there); returns stdout. */
  async ok(...args: string[]): Promise<string> {
    const r = await this.run(...args);
    expect(r.code, `tasks ${args.join(' ')}: ${r.stderr}`).toBe(0);
    expect(r.stderr, `tasks ${args.join(' ')}`).not.toMatch(/error|warning/i);
    return r.stdout;
  }

  async json<T = unknown>(...args: string[]): Promise<T> {
    return JSON.parse(await this.ok(...args, '--json')) as T;
  }

  /** `tasks list --json`: the tasks as their files hold them (each has its change time, `updatedAt`, taken off here). */
  async list(...flags: string[]): Promise<Task[]> {
    const tasks = await this.json<Array<Task & { updatedAt?: unknown }>>('list', ...flags);
    return tasks.map(({ updatedAt, ...task }) => {
      expect(typeof updatedAt, `#${task.id} has its change time`).toBe('string');
      return task as Task;
    });
  }

  /** Every task file, parsed, each checked against the schema the agents validate with. */
  files(): Map<string, Task> {
    const out = new Map<string, Task>();
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue;
      const text = fs.readFileSync(path.join(this.dir, name), 'utf8');
      const value = JSON.parse(text) as Task;
      expect.soft(taskSchemas().TaskSchema.safeParse(value).success, `${name} is a valid task: ${text}`).toBe(true);
      // The parsed file itself, keys in file order (zod's output would reorder them).
      out.set(name.replace(/\.json$/, ''), value);
    }
    return out;
  }

  raw(id: string): string {
    return fs.readFileSync(path.join(this.dir, `${id}.json`), 'utf8');
  }

  /** Lock directories left behind (there should be none once everyone is done). */
  leftoverLocks(): string[] {
    return fs.readdirSync(this.dir).filter((n) => n.endsWith('.lock') && n !== '.lock');
  }
}
