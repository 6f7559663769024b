// Maintenance windows: `HHMMSS+HHMM` times, and the next window start after an instant.
import t from '../helpers/parts.js';
import { formatWindow, maintenanceWindowOf, nextWindowStart, utcSecondOfDay } from '../../src/gardener/maintenance.js';
import { shoot } from '../helpers/objects.js';

const at = (iso: string) => Date.parse(iso);

t.test('utcSecondOfDay', async (t) => {
  const rows: Array<[string, number | undefined]> = [
    ['000000+0000', 0],
    ['220000+0200', 20 * 3600],
    ['013000+0200', 23 * 3600 + 30 * 60],
    ['230000-0500', 4 * 3600],
    ['120000', undefined],
    ['250000+0000', undefined],
    ['22:00:00+0000', undefined],
  ];
  for (const [time, want] of rows) t.equal(utcSecondOfDay(time), want, time);
});

t.test('nextWindowStart', async (t) => {
  const w = { begin: '220000+0200', end: '230000+0200' };
  const rows: Array<[string, string, string]> = [
    ['later the same day', '2026-09-10T00:00:00Z', '2026-09-10T20:00:00Z'],
    ["after today's window began: tomorrow", '2026-09-10T20:30:00Z', '2026-09-11T20:00:00Z'],
    ['exactly at the start: the next one, strictly after', '2026-09-10T20:00:00Z', '2026-09-11T20:00:00Z'],
  ];
  for (const [name, after, want] of rows) t.equal(nextWindowStart(w, at(after)), at(want), name);
  t.equal(
    nextWindowStart({ begin: '013000+0200', end: '023000+0200' }, at('2026-09-10T12:00:00Z')),
    at('2026-09-10T23:30:00Z'),
    'a local time past midnight falls on the UTC day before',
  );
  t.equal(nextWindowStart({ begin: 'nonsense', end: 'x' }, at('2026-09-10T12:00:00Z')), undefined);
});

t.test('maintenanceWindowOf', async (t) => {
  const s = shoot();
  t.equal(maintenanceWindowOf(s), undefined, 'no window set');
  s.spec.maintenance = { timeWindow: { begin: '220000+0200', end: '230000+0200' } };
  t.same(maintenanceWindowOf(s), { begin: '220000+0200', end: '230000+0200' });
  s.spec.maintenance = { timeWindow: { begin: '22h', end: '230000+0200' } };
  t.equal(maintenanceWindowOf(s), undefined, 'an unreadable window is no window');
});

t.test('formatWindow: as people read it, in UTC', async (t) => {
  t.equal(formatWindow({ begin: '230000+0000', end: '000000+0000' }), '23:00–00:00 UTC', 'across midnight');
  t.equal(formatWindow({ begin: '220000+0200', end: '230000+0200' }), '20:00–21:00 UTC', 'an offset, in UTC');
  t.equal(formatWindow({ begin: '030000-0500', end: '043030-0500' }), '08:00–09:30:30 UTC', 'seconds only where set');
  t.equal(formatWindow({ begin: '22h', end: '230000+0000' }), '22h-230000+0000', 'unreadable: as written');
});
