// The timeline window: day offsets or dates, parsed strictly; a bad bound is an error that says
// what is accepted, never a different picture.
import t from '../helpers/parts.js';
import { parseWindowBound, resolveWindow, WindowError } from '../../src/report/window.js';
import { NOW } from '../helpers/objects.js';

const DAY = 86_400_000;

t.test('accepted bounds', async (t) => {
  const cases: Array<[string, ReturnType<typeof parseWindowBound>]> = [
    ['-90d', { days: -90 }],
    ['365d', { days: 365 }],
    ['+30d', { days: 30 }],
    ['0d', { days: 0 }],
    ['-0d', { days: 0 }],
    ['3650d', { days: 3650 }],
    ['2027-12-31', { date: Date.parse('2027-12-31T00:00:00Z') }],
    ['2028-02-29', { date: Date.parse('2028-02-29T00:00:00Z') }],
  ];
  for (const [text, expected] of cases) t.same(parseWindowBound(text), expected, text);
});

t.test('refused bounds', async (t) => {
  const cases = [
    '',
    '90',
    '-90',
    '90 d',
    ' 90d',
    '90D',
    '-90days',
    '1.5d',
    '3651d',
    '-3651d',
    '12w',
    '6m',
    '2027-02-29',
    '2027-13-01',
    '2027-1-01',
    '2027-12-31T00:00:00Z',
    'now',
    '0x10d',
    '١٢d',
  ];
  for (const text of cases) t.throws(() => parseWindowBound(text), WindowError, JSON.stringify(text));
  t.throws(
    () => parseWindowBound('90'),
    /not a day offset \(e\.g\. -90d, 365d\) or a date \(e\.g\. 2027-12-31\): "90"/,
  );
  t.throws(() => parseWindowBound('4000d'), /more than 3650 days from now/);
});

t.test('the window: defaults, relative and absolute bounds, and its order', async (t) => {
  t.same(resolveWindow(NOW), { from: NOW - 90 * DAY, to: NOW + 365 * DAY }, 'default -90d .. 365d');
  t.same(resolveWindow(NOW, { days: -7 }, { date: Date.parse('2027-01-01') }), {
    from: NOW - 7 * DAY,
    to: Date.parse('2027-01-01'),
  });
  t.throws(() => resolveWindow(NOW, { days: 10 }, { days: 10 }), /at least one day after it starts/, 'empty');
  t.throws(() => resolveWindow(NOW, { days: 10 }, { days: -10 }), /at least one day after it starts/, 'backwards');
  t.throws(
    () => resolveWindow(NOW, { date: Date.parse('1990-01-01') }, { days: 3650 }),
    /at most 7300 days/,
    'too long',
  );
});
