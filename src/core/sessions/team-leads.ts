import fs from 'node:fs';
import path from 'node:path';
import { MAX_CONFIG_BYTES, readBoundedText } from '../base/bounded-read.js';
import { sanitizeListId } from '../store/paths.js';

/**
 * Teams' leads, from `<config>/teams/<team>/config.json` (docs/task-store.md section 8):
 * `name`, `leadSessionId` (the session that made the team) and `leadProcess` (`{pid,
 * procStart, ...}`: the process leading it now, checked against 2.1.328), by the team's
 * list id. Read without zod, for the list choice every command makes; a config that
 * cannot be read or lacks a name and a lead session is left out (the team commands
 * report damaged configs).
 */
export interface TeamLead {
  sessionId: string;
  /** The lead's process, when the config records one. */
  process?: { pid: number; procStart?: string | undefined } | undefined;
}

export function readTeamLeads(configDir: string): Map<string, TeamLead> {
  const leads = new Map<string, TeamLead>();
  const root = path.join(configDir, 'teams');
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return leads;
  }
  for (const name of names) {
    try {
      const config = JSON.parse(readBoundedText(path.join(root, name, 'config.json'), MAX_CONFIG_BYTES)) as unknown;
      if (typeof config !== 'object' || config === null) continue;
      const { name: team, leadSessionId, leadProcess } = config as Record<string, unknown>;
      if (typeof team === 'string' && team !== '' && typeof leadSessionId === 'string' && leadSessionId !== '') {
        leads.set(sanitizeListId(team), { sessionId: leadSessionId, process: processOf(leadProcess) });
      }
    } catch {
      // unreadable: no lead known for it
    }
  }
  return leads;
}

function processOf(value: unknown): TeamLead['process'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const { pid, procStart } = value as Record<string, unknown>;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return { pid, procStart: typeof procStart === 'number' ? String(procStart) : typeof procStart === 'string' ? procStart : undefined };
}
