/**
 * A named project folder's sessions by directory (core/sessions/named-folders.ts): worked
 * out from each transcript's cwd, kept with the folder's stamp, and used only while that
 * stamp holds; never kept while the folder is still settling or a transcript there names
 * no directory yet.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTLE_MS } from '../../src/core/cache/file-stamp.js';
import { Shard } from '../../src/core/cache/persistent-cache.js';
import { sessionsByDirectory } from '../../src/core/sessions/named-folders.js';
import { TranscriptStore } from '../../src/core/sessions/transcript-store.js';
import { writeTranscript } from '../helpers/session-files.mjs';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const C = '33333333-3333-4333-8333-333333333333';

function world() {
  const config = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-named-'));
  const folder = path.join(config, 'projects', 'myproj');
  const past = Date.now() - 3_600_000;
  writeTranscript(config, { sessionId: A, cwd: '/work/api', projectFolder: 'myproj', start: past, end: past + 1000 });
  writeTranscript(config, { sessionId: B, cwd: '/work/web', projectFolder: 'myproj', start: past, end: past + 1000 });
  const shard = new Shard({});
  let reads = 0;
  const reader = (now = Date.now() + SETTLE_MS + 1000) => {
    const store = new TranscriptStore(path.join(config, 'projects'), undefined, () => now);
    return {
      shard,
      now,
      facts: (file: string) => {
        reads++;
        return store.facts(file);
      },
      factsAhead: () => {},
    };
  };
  return { config, folder, shard, reader, reads: () => reads };
}

describe("a named project folder's sessions by directory", () => {
  it('are told by each transcript, kept, and used again while the folder is unchanged', () => {
    const w = world();
    const first = sessionsByDirectory(w.folder, w.reader());
    expect(Object.fromEntries(first.byDirectory)).toEqual({ '/work/api': [A], '/work/web': [B] });
    expect(w.reads()).toBe(2);
    const again = sessionsByDirectory(w.folder, w.reader());
    expect(Object.fromEntries(again.byDirectory)).toEqual({ '/work/api': [A], '/work/web': [B] });
    expect(w.reads()).toBe(2);
    // A new transcript changes the folder: worked out again, the new session with it.
    writeTranscript(w.config, { sessionId: C, cwd: '/work/api', projectFolder: 'myproj' });
    const after = sessionsByDirectory(w.folder, w.reader());
    expect(after.byDirectory.get('/work/api')?.sort()).toEqual([A, C]);
    expect(w.reads()).toBe(5);
  });

  it('is not kept while the folder settles, nor while a transcript names no directory', () => {
    const w = world();
    // Read in the same moment the folder changed: not kept.
    sessionsByDirectory(w.folder, w.reader(fs.statSync(w.folder).mtimeMs));
    expect(w.shard.get('myproj')).toBeUndefined();
    // A transcript just made, with no entry that names its directory yet.
    fs.writeFileSync(path.join(w.folder, `${C}.jsonl`), '{"type":"queue-operation","operation":"enqueue"}\n');
    const found = sessionsByDirectory(w.folder, w.reader());
    expect(found.unknown).toEqual([C]);
    expect(w.shard.get('myproj')).toBeUndefined();
  });

  it('refuses a kept entry whose ids are not session ids', () => {
    const w = world();
    sessionsByDirectory(w.folder, w.reader());
    const kept = w.shard.get('myproj') as { s: unknown; c: Record<string, string[]> };
    w.shard.set('myproj', { ...kept, c: { '/work/api': ['../../etc/passwd'] } });
    expect(Object.fromEntries(sessionsByDirectory(w.folder, w.reader()).byDirectory)).toEqual({ '/work/api': [A], '/work/web': [B] });
  });
});
