// Instants as Gardener reads them: a lifecycle's startTime, an expirationDate and a
// deletionTimestamp are metav1.Time, which decodes with Go's time.Parse(time.RFC3339, s). Go is
// laxer than RFC 3339 in places (a one-digit hour, a comma before the fraction, offsets up to
// ±24:60) and stricter in others (no lower-case `t` or `z`, no space, no leap second, and a day
// must exist: `2024-06-31` does not). This is Go's general parser for that one layout, ported with
// its error texts; test/e2e/semver proves it against Go itself.

import { memo } from '../util/memo.js';

const LAYOUT = '2006-01-02T15:04:05Z07:00';
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * parseGoInstant, remembered: the edge checks every timestamp and the rules read them again, and a
 * profile repeats the same few hundred.
 */
export const instantOf: (value: string) => number | string = memo(50_000, (value: string) => parseGoInstant(value));

/** Epoch milliseconds of an RFC 3339 instant as Go parses it, or Go's error text. */
export function parseGoInstant(value: string): number | string {
  // Go reads bytes: a string of other than ASCII is read as its UTF-8 bytes, one char each.
  const b = NOT_ASCII.test(value) ? String.fromCharCode(...new TextEncoder().encode(value)) : value;
  let i = 0;
  const fail = (layoutElem: string, from: number) =>
    `parsing time ${goQuote(b, 0, b.length)} as "${LAYOUT}": cannot parse ${goQuote(b, from, b.length)} as "${layoutElem}"`;
  const outOfRange = (what: string) => `parsing time ${goQuote(b, 0, b.length)}: ${what} out of range`;
  const code = (k: number) => b.charCodeAt(k);
  const digit = (k: number) => code(k) >= 48 && code(k) <= 57;
  /** Go's getnum: one or two digits (fixed: exactly two). */
  const num = (fixed: boolean): number | undefined => {
    if (!digit(i)) return undefined;
    if (!digit(i + 1)) return fixed ? undefined : code(i++) - 48;
    i += 2;
    return (code(i - 2) - 48) * 10 + code(i - 1) - 48;
  };
  const literal = (c: string) => {
    if (b[i] !== c) return false;
    i++;
    return true;
  };

  // 2006
  if (b.length < 4 || !digit(0) || !digit(1) || !digit(2) || !digit(3)) return fail('2006', 0);
  const year = (code(0) - 48) * 1000 + (code(1) - 48) * 100 + (code(2) - 48) * 10 + code(3) - 48;
  i = 4;
  // -01
  if (!literal('-')) return fail('-', i);
  let at = i;
  const month = num(true);
  if (month === undefined) return fail('01', at);
  if (month <= 0 || month > 12) return outOfRange('month');
  // -02
  if (!literal('-')) return fail('-', i);
  at = i;
  const day = num(true);
  if (day === undefined) return fail('02', at);
  // T15
  if (!literal('T')) return fail('T', i);
  at = i;
  const hour = num(false);
  if (hour === undefined) return fail('15', at);
  if (hour >= 24) return outOfRange('hour');
  // :04
  if (!literal(':')) return fail(':', i);
  at = i;
  const minute = num(true);
  if (minute === undefined) return fail('04', at);
  if (minute >= 60) return outOfRange('minute');
  // :05, and a fraction the layout does not name but Go takes anyway
  if (!literal(':')) return fail(':', i);
  at = i;
  const second = num(true);
  if (second === undefined) return fail('05', at);
  if (second >= 60) return outOfRange('second');
  let nanos = 0;
  if ((b[i] === '.' || b[i] === ',') && digit(i + 1)) {
    let n = i + 1;
    while (digit(n)) n++;
    // parseNanoseconds: nine digits at most count.
    const digits = b.slice(i + 1, Math.min(n, i + 10));
    nanos = Number(digits) * 10 ** (9 - digits.length);
    i = n;
  }
  // Z07:00
  let offset = 0;
  at = i;
  if (b[i] === 'Z') i++;
  else {
    if (b.length - i < 6 || b[i + 3] !== ':') return fail('Z07:00', at);
    const sign = b[i];
    i++;
    const hours = num(true);
    i = at + 4;
    const minutes = hours === undefined ? 0 : num(true);
    i = at + 6;
    // Go checks the ranges (the minutes' last) before it reports what did not parse.
    let range = '';
    if ((hours ?? 0) > 24) range = 'time zone offset hour';
    if ((minutes ?? 0) > 60) range = 'time zone offset minute';
    if (range) return outOfRange(range);
    if (hours === undefined || minutes === undefined || (sign !== '+' && sign !== '-')) return fail('Z07:00', at);
    offset = (sign === '-' ? -1 : 1) * (hours * 60 + minutes) * 60;
  }
  if (i < b.length) return `parsing time ${goQuote(b, 0, b.length)}: extra text: ${goQuote(b, i, b.length)}`;
  if (day < 1 || day > daysIn(month, year)) return outOfRange('day');
  const seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
  return seconds * 1000 + Math.floor(nanos / 1e6);
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The time package's quote: ASCII as is (`"` and `\` escaped), every other byte as \xNN. */
function goQuote(b: string, from: number, to: number): string {
  let out = '"';
  for (let k = from; k < to; k++) {
    const c = b.charCodeAt(k);
    if (c < 0x20 || c >= 0x80) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += c === 34 || c === 92 ? `\\${String.fromCharCode(c)}` : String.fromCharCode(c);
  }
  return `${out}"`;
}
