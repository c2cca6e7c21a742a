/**
 * `tasks notify` and a task in progress whose file is dated ahead of this machine's clock
 * (clock skew, a copied file, a VM resumed): by the file's time it would not stall for
 * hours. As `watch --fail-if-stalled`, notify counts such a time from when it first saw
 * it, and tells the stall the stall time after. Through the built binary: notify is a
 * long-running process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempConfig } from '../helpers/cli.js';
import { listWith, notifyHarness, taskOf, until } from '../helpers/notify.js';

const h = notifyHarness();
afterEach(async () => {
  await h.cleanup();
});

describe('notify: a task file dated in the future', () => {
  it('is told stalled the stall time after notify first saw it, not hours later', async () => {
    const config = tempConfig();
    const dir = listWith(config, 'app', [taskOf('1', { status: 'in_progress', owner: 'agent-1' })]);
    const ahead = (Date.now() + 3 * 3_600_000) / 1000;
    fs.utimesSync(path.join(dir, '1.json'), ahead, ahead);
    const out = path.join(config, 'sent.jsonl');
    const p = h.notify(config, ['-l', 'app', '--stalled', '2s', '--on', 'stalled', '--to', `exec:cat >> '${out}'; echo >> '${out}'`]);
    await p.waitForErr('notify: following');
    await until(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8').includes('"stalled"'), 'the stall', 15_000);
    const sent = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(sent.map((e) => e.event)).toEqual(['stalled']);
    expect(sent[0].tasks.map((t: { id: string }) => t.id)).toEqual(['1']);
  });
});
