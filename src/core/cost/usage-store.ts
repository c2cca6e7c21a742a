import path from 'node:path';
import type { PersistentCache } from '../cache/persistent-cache.js';
import { journalPath, previousJournalPath } from '../history/journal.js';
import { TranscriptStore } from '../sessions/transcript-store.js';
import { tasksRoot } from '../store/paths.js';
import { JOURNAL_MARKS_SCAN, type JournalMarksState } from './journal-marks.js';
import { type TranscriptUsage, USAGE_SCAN, usageOf } from './usage-scan.js';

/**
 * Where what the cost rule reads is kept between runs: each transcript's usage
 * (usage-scan.ts) and each journal's marks (journal-marks.ts), read once per version of
 * the file and, where a file grew, from where the last read stopped (the transcript
 * store's incremental reads). One shard of the persistent cache per list (`--all`: one of
 * its own), holding only the files that list's cost read the last time: the project
 * folders' shards, which most commands read, do not carry it.
 */
export class UsageStore {
  private readonly transcripts: TranscriptStore;
  private readonly journals: TranscriptStore;
  private readonly shard: string;
  private readonly read = new Set<string>();

  constructor(
    configDir: string,
    private readonly cache: PersistentCache | undefined,
    now: () => number,
    /** The list whose cost this is; undefined: every list's (`--all`). */
    list: string | undefined,
  ) {
    this.shard = list === undefined ? '_usage' : `_usage-${list}`;
    this.transcripts = new TranscriptStore(path.join(configDir, 'projects'), cache, now, this.shard);
    this.journals = new TranscriptStore(tasksRoot(configDir), cache, now, this.shard);
  }

  /** A transcript's messages, marks and subjects. */
  usage(file: string): TranscriptUsage {
    this.keep(this.transcripts.keyOf(file));
    return usageOf(this.transcripts.scan(file, USAGE_SCAN));
  }

  /** A list's journal, its previous generation first. */
  journal(listDir: string): JournalMarksState[] {
    return [previousJournalPath(listDir), journalPath(listDir)].map((file) => {
      this.keep(this.journals.keyOf(file));
      return this.journals.scan(file, JOURNAL_MARKS_SCAN);
    });
  }

  /** The bytes reading these would cost now (what is kept costs nothing). */
  unreadBytes(transcripts: readonly string[], listDirs: readonly string[]): number {
    let bytes = 0;
    for (const file of transcripts) bytes += this.transcripts.unreadBytes(file, USAGE_SCAN);
    for (const dir of listDirs)
      for (const file of [previousJournalPath(dir), journalPath(dir)]) bytes += this.journals.unreadBytes(file, JOURNAL_MARKS_SCAN);
    return bytes;
  }

  private keep(key: string | undefined): void {
    if (key !== undefined) this.read.add(key);
  }

  /** Keep only what this run read in the shard (the list's sessions now); written when the run's cache is saved. */
  retainRead(): void {
    this.cache?.shard(this.shard).retain(this.read);
  }
}
