import fs from 'node:fs';
import path from 'node:path';
import { MAX_CONFIG_BYTES, readBoundedText } from '../base/bounded-read.js';
import { sanitizeListId } from '../store/paths.js';

/**
 * Team list id -> the session id of the team's lead, from `<config>/teams/<team>/config.json`
 * (`name`, `leadSessionId`: the session that created the team, checked against 2.1.328).
 * Read without zod, for the list choice every command makes; a config that cannot be read
 * or lacks either field is left out (the team commands report damaged configs).
 */
export function readTeamLeads(configDir: string): Map<string, string> {
  const leads = new Map<string, string>();
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
      const { name: team, leadSessionId } = config as Record<string, unknown>;
      if (typeof team === 'string' && team !== '' && typeof leadSessionId === 'string' && leadSessionId !== '') {
        leads.set(sanitizeListId(team), leadSessionId);
      }
    } catch {
      // unreadable: no lead known for it
    }
  }
  return leads;
}
