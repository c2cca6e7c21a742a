/**
 * `new Date(ms).toISOString()`, the same text, made cheaply: V8 formats each one through
 * printf (about 7,000 instructions), and `list --json` of thousands of tasks has one a task;
 * a process's first `toISOString` also costs about 0.2 ms of set-up, which every `--json`
 * output paid once. The date part is made by arithmetic once a day of times, the time of
 * day by arithmetic.
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
    lastDate = civilDate(day);
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

/**
 * "YYYY-MM-DDT" of a day counted from 1970-01-01 (0 to 2,932,896, years 1970-9999): the
 * proleptic Gregorian calendar by whole 400-year eras, as Date does (H. Hinnant's
 * civil_from_days, for days from 1970 on).
 */
function civilDate(day: number): string {
  const z = day + 719_468; // days from 0000-03-01
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const marchMonth = Math.floor((5 * dayOfYear + 2) / 153); // 0 = March
  const date = dayOfYear - Math.floor((153 * marchMonth + 2) / 5) + 1;
  const month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${two(month)}-${two(date)}T`;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}
