import { ERROR_CODES, type ErrorCode } from '../../core/base/errors.js';
import { NOTICES } from '../../core/base/notices.js';
import { FINDING_CODES } from '../../core/check/findings.js';
import { CLAIM_REASONS } from '../../core/claims/claim-rule.js';
import { DOCTOR_CODES } from '../../core/doctor/doctor-findings.js';
import { exitCodeFor } from '../runtime/exit-codes.js';
import { GENERATED, markdownCell } from './markdown.js';

/**
 * docs/reference/codes.md: every code `tasks` puts in its output, from the lists the code
 * itself uses (errors: core/base/errors.ts; warnings and notes: core/base/notices.ts;
 * findings of check and doctor, claim reasons: their folders' lists).
 */
export function codesPage(): string {
  const errors = (Object.keys(ERROR_CODES) as ErrorCode[]).map(
    (code) => `| \`${code}\` | ${exitCodeFor(code)} | ${markdownCell(ERROR_CODES[code])} |`,
  );
  const notices = (Object.keys(NOTICES) as Array<keyof typeof NOTICES>).sort().map((code) => {
    const n: { kind: string; when: string; facts?: readonly string[] } = NOTICES[code];
    const facts = (n.facts ?? []).map((f) => `\`${f}\``).join(', ');
    return `| \`${code}\` | ${n.kind} | ${markdownCell(n.when)} | ${facts} |`;
  });
  const list = (codes: readonly string[]) => codes.map((c) => `\`${c}\``).join(', ');
  return [
    GENERATED,
    '',
    '# Codes',
    '',
    'Every code `tasks` puts in its output. With `--json`, stderr holds JSON lines only, each',
    'an object with one key: `{"error": {"code", "message", ...}}`,',
    '`{"warning": {"code", "message", ...}}` or `{"note": {"code", "message", ...}}`; the',
    'other keys are the facts named below ([json-output.md](../json-output.md#the-error-object)',
    'says which facts each error carries). A script branches on `code`, never on `message`.',
    '',
    '## Errors',
    '',
    'Each error code maps to one exit status ([exit-codes.md](../exit-codes.md)).',
    '',
    '| `code` | exit | meaning |',
    '|---|---|---|',
    ...errors,
    '',
    '## Warnings and notes',
    '',
    'A warning is a problem a command went on past; a note is anything else worth knowing.',
    'Without `--json` they are lines on stderr (`warning: ...`, or the note itself).',
    '',
    '| `code` | kind | when | facts |',
    '|---|---|---|---|',
    ...notices,
    '',
    '## Findings of `tasks check`',
    '',
    `${list(FINDING_CODES)}: each in \`findings[].code\` of \`check --json\`;`,
    'what each means, its fields and what `--fix` does: [guide/check.md](../guide/check.md).',
    '',
    '## Findings of `tasks doctor`',
    '',
    `${list(DOCTOR_CODES)}: each in \`findings[].code\` of \`doctor --json\`;`,
    'each cause and its fix: [guide/sessions.md](../guide/sessions.md#tasks-doctor).',
    '',
    '## Claim reasons',
    '',
    `${list([...CLAIM_REASONS, 'no_task_ready'])}: the \`reason\` of a refused claim, as agents'`,
    'own claim gives it (`no_task_ready` is `claim --next` finding nothing ready):',
    '[guide/working-with-tasks.md](../guide/working-with-tasks.md#claims-claim-claim---next).',
    '',
  ].join('\n');
}
