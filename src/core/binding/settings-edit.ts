import { TasksError } from '../base/errors.js';
import { holdsOnlyFiniteNumbers, inexactInteger } from '../base/finite-json.js';
import { MAX_JSON_DEPTH, nestingExceeds } from '../base/json-depth.js';

/**
 * Editing one key of a settings file's `env` as text, pure: the rest of the file (its
 * other keys, in their order, and its indentation style) stays as it was. JSON has no
 * comments, so re-serializing loses nothing but spacing, which is kept as detected: the
 * indent unit of the first indented line (two spaces when there is none yet), a one-line
 * file stays on one line, the final newline is kept (added to a new file), and so are a
 * byte order mark and CRLF line ends.
 */
export interface EnvEdit {
  /** The new text; equal to the old one when nothing changes. */
  text: string;
  changed: boolean;
  /** The value the key had before (undefined: absent). */
  previous: unknown;
}

/** Set (`value` a string) or remove (`value` undefined) `env[key]` in settings text (undefined: no file yet). */
export function editEnv(text: string | undefined, file: string, key: string, value: string | undefined): EnvEdit {
  const settings = parseSettings(text, file);
  const hadEnv = Object.hasOwn(settings, 'env');
  const env = hadEnv ? settings.env : {};
  if (typeof env !== 'object' || env === null || Array.isArray(env)) {
    throw new TasksError('usage', `${file}: "env" is not an object; tasks leaves the file as it is`, {
      hint: 'fix the file, then run the command again',
    });
  }
  const vars = env as Record<string, unknown>;
  const has = Object.hasOwn(vars, key);
  const previous = has ? vars[key] : undefined;
  if (value === undefined ? !has : has && previous === value) return { text: text ?? '', changed: false, previous };
  refuseLossyNumbers(text, settings, file);
  if (value === undefined) delete vars[key];
  else vars[key] = value;
  // A binding removed from an env object that held nothing else leaves no empty "env" behind.
  if (value === undefined && Object.keys(vars).length === 0) delete settings.env;
  else settings.env = vars;
  return { text: serialize(settings, text), changed: true, previous };
}

function parseSettings(text: string | undefined, file: string): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new TasksError('usage', `${file} is not valid JSON (${(err as Error).message}); tasks leaves it as it is`, {
      hint: 'fix the file (Claude Code skips it as it is), then run the command again',
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TasksError('usage', `${file} holds no JSON object; tasks leaves it as it is`, {
      hint: 'fix the file, then run the command again',
    });
  }
  // Written back whole: a value nested thousands deep would overflow the stack on the way out.
  if (nestingExceeds(value)) {
    throw new TasksError('usage', `${file} nests deeper than ${MAX_JSON_DEPTH} levels; tasks leaves it as it is`, {
      hint: 'fix the file, then run the command again',
    });
  }
  return value as Record<string, unknown>;
}

/**
 * The file is written back whole, so a number JSON.parse could not keep (`1e999` comes back as
 * null, `12345678901234567890` as ...7000) would change a setting that is none of ours.
 */
function refuseLossyNumbers(text: string | undefined, settings: Record<string, unknown>, file: string): void {
  const inexact = text === undefined ? undefined : inexactInteger(text.replace(/^\uFEFF/, ''));
  const lost = !holdsOnlyFiniteNumbers(settings)
    ? 'one too large for JSON would become null'
    : inexact && `${inexact.literal} would become ${inexact.written}`;
  if (lost)
    throw new TasksError('usage', `${file} holds a number that would not be written back as it is (${lost}); tasks leaves it as it is`, {
      hint: 'write the number as a string, or set the binding by hand',
    });
}

/** Serialize in the style of `original`: its indent unit, one line if it was one, its final newline, its BOM and line ends. */
export function serialize(value: unknown, original: string | undefined): string {
  const bom = original?.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = original?.replace(/^\uFEFF/, '').trim() ?? '';
  const oneLine = body !== '' && !body.includes('\n');
  const indent = oneLine ? undefined : (/\n([ \t]+)\S/.exec(body)?.[1] ?? '  ');
  const newline = original === undefined || original.trim() === '' || /\n\s*$/.test(original);
  const crlf = original !== undefined && /\r\n/.test(original) && !/(^|[^\r])\n/.test(original);
  const text = `${JSON.stringify(value, null, indent)}${newline ? '\n' : ''}`;
  return bom + (crlf ? text.replace(/\n/g, '\r\n') : text);
}
