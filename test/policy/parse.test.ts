// The schema check at the edge: timestamps must be RFC 3339 date-times, whether or not the same
// string has been checked before (the check remembers its answers).
import t from 'tap';
import { parsePolicedObject } from '../../src/policy/parse.js';
import { cloudProfile } from '../helpers/objects.js';

const withExpiry = (expirationDate: string) => cloudProfile({ kubernetes: ['1.31.0', { version: '1.30.0', classification: 'deprecated', expirationDate }] });

t.test('an expirationDate must be an RFC 3339 date-time, the first time and every time after', async (t) => {
  for (let round = 0; round < 2; round++) {
    t.ok(parsePolicedObject('CloudProfile', withExpiry('2026-03-01T00:00:00Z')).ok, `a valid date-time (round ${round + 1})`);
    for (const bad of ['2026-02-30T00:00:00Z', '2026-03-01', '2026-03-01T25:00:00Z', 'tomorrow']) {
      t.same(
        parsePolicedObject('CloudProfile', withExpiry(bad)),
        { ok: false, errors: [{ field: 'spec.kubernetes.versions[1].expirationDate', message: 'must be an RFC 3339 timestamp' }] },
        `${bad} (round ${round + 1})`,
      );
    }
  }
});
