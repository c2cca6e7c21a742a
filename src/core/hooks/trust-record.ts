import fs from 'node:fs';
import path from 'node:path';
import { MAX_INBOX_BYTES, readBoundedText } from '../base/bounded-read.js';
import { errnoCode, TasksError } from '../base/errors.js';
import { writeFileAtomic } from '../store/task-file.js';
import { folderTrust, type TrustSources } from './folder-trust.js';

/**
 * Trusting a folder the way Claude Code records it (folder-trust.ts): what accepting its
 * trust dialog writes, `projects["<folder>"].hasTrustDialogAccepted: true` in its global
 * config, for the folder's git repository root (else the folder itself). For a CI job,
 * whose checkout nobody can accept a dialog in: `tasks trust` once, in the job's script,
 * and both `tasks` and an interactive Claude Code then run the project's hooks there.
 * Everything else in the file is kept; it is written by temp file and rename.
 */
export interface TrustRecorded {
  /** The folder the record names. */
  folder: string;
  configFile: string;
  /** It was trusted already (by this record or one above it, or CLAUDE_CODE_SANDBOXED); nothing written. */
  already: boolean;
}

export function recordFolderTrust(folder: string, sources: TrustSources): TrustRecorded {
  const verdict = folderTrust(folder, sources);
  if (verdict.trusted) return { folder: verdict.by, configFile: sources.globalConfigFile, already: true };
  const file = sources.globalConfigFile;
  let config: Record<string, unknown> = {};
  let text: string | undefined;
  try {
    text = readBoundedText(file, MAX_INBOX_BYTES);
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT') throw new TasksError('io', `cannot read ${file}: ${(err as Error).message}`);
  }
  if (text !== undefined && text.trim() !== '') {
    let parsed: unknown;
    let invalid: string | undefined;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      invalid = (err as Error).message;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      // Never overwrite a file we cannot read as Claude Code's config.
      const what = invalid === undefined ? 'is not a JSON object' : `is not valid JSON (${parseProblem(invalid, text)})`;
      throw new TasksError('conflict', `${file} ${what}: not changed; fix it, or trust the folder in Claude Code`, {
        details: { file },
      });
    }
    config = parsed as Record<string, unknown>;
  }
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  // Never drop what is there: a `projects` (or the folder's record) that is not an object
  // is not Claude Code's shape, and replacing it would lose it.
  const notChanged = (what: string) =>
    new TasksError('conflict', `${what} in ${file} is not a JSON object: not changed; fix it, or trust the folder in Claude Code`, {
      details: { file },
    });
  if (config.projects !== undefined && !isRecord(config.projects)) throw notChanged('"projects"');
  const projects = config.projects ?? {};
  const key = verdict.recordKey;
  const existing = projects[key];
  if (existing !== undefined && !isRecord(existing)) throw notChanged(`projects[${JSON.stringify(key)}]`);
  const record = existing ?? {};
  const next = { ...config, projects: { ...projects, [key]: { ...record, hasTrustDialogAccepted: true } } };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
  return { folder: key, configFile: file, already: false };
}

/**
 * A parser's message on one line, cut short, without the excerpt of the file V8 quotes
 * (`Unexpected token '}', ..."ET", "b": }" is not valid JSON`): the file holds credentials
 * (an API key, OAuth tokens), and this message goes to CI logs. Where the parser gives a
 * position, its line and column are said too.
 */
function parseProblem(message: string, text: string): string {
  let line = message
    .replace(/, (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  const at = /at position (\d+)/.exec(line);
  if (at !== null && !/\bline\b/.test(line)) {
    const before = text.slice(0, Number(at[1]));
    const lineNo = before.split('\n').length;
    line += ` (line ${lineNo} column ${before.length - before.lastIndexOf('\n')})`;
  }
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
