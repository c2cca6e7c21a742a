/**
 * `new Date(ms).toISOString()`, the same text, made cheaply: V8 formats each one through
 * printf (about 7,000 instructions), and `list --json` of thousands of tasks has one a task.
 * The date part is made by V8 once a day of times; the time of day by arithmetic.
 */
const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from there on, and before 1970, V8's own text (six-digit years, signs). */
const PLAIN_YEARS_END_MS = 253_402_300_800_000;

let lastDay = Number.NaN;
let lastDate = '';

export function isoTime(ms: number): string {
  // The Date constructor's TimeClip: the time truncated towards zero.
  const t = Math.trunc(ms);
  if (!(t >= 0 && t < PLAIN_YEARS_END_MS)) return new Date(ms).toISOString();
  const day = Math.floor(t / DAY_MS);
  if (day !== lastDay) {
    lastDate = new Date(day * DAY_MS).toISOString().slice(0, 11);
    lastDay = day;
  }
  let rest = t - day * DAY_MS;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  return `${lastDate}${two(hours)}:${two(minutes)}:${two(seconds)}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}
