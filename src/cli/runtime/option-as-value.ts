import { TasksError } from '../../core/base/errors.js';

/**
 * `--owner --no-notify`: an option given another option of its command as its value, refused
 * by the program (flags/option-values.ts) and, for a host's command line, here before ssh
 * (remote/usage-check.ts), in the same words.
 */
export function optionAsValue(option: string, value: string): TasksError {
  return new TasksError('usage', `${option} was given no value: "${value}" is an option (an empty variable before it?)`);
}
