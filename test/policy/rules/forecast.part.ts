// FORECAST: a profile UPDATE whose maintenance forecast meets a condition of `forecast.deny`. By
// default it denies nothing and says the findings as warnings; the analysis itself has its own
// table (test/gardener/forecast/profile-change.part.ts).
import t from '../../helpers/parts.js';
import { NOT_READY_MESSAGE } from '../../../src/policy/evaluate.js';
import type { PolicedObject } from '../../../src/api/types.js';
import type { DecideInput } from '../../helpers/objects.js';
import { cloudProfile, decide, hoursFromNow, namespacedProfile, shoot } from '../../helpers/objects.js';
import { runTable } from './table.js';

// gardener#13647: 1.31.2 added as deprecated while Shoots on supported 1.31.1 auto-update.
const before = cloudProfile({
  kubernetes: [
    { version: '1.32.0', classification: 'supported' },
    { version: '1.31.1', classification: 'supported' },
  ],
});
const withdrawn = cloudProfile({
  kubernetes: [
    { version: '1.32.0', classification: 'supported' },
    { version: '1.31.2', classification: 'deprecated', expirationDate: hoursFromNow(24 * 90) },
    { version: '1.31.1', classification: 'supported' },
  ],
});
const asPreview = cloudProfile({
  kubernetes: [
    { version: '1.32.0', classification: 'supported' },
    { version: '1.31.2', classification: 'preview' },
    { version: '1.31.1', classification: 'supported' },
  ],
});
const onIt = shoot({ name: 'a', version: '1.31.1' });

const update = (
  object = withdrawn,
  state: PolicedObject[] = [onIt],
  extra: Partial<DecideInput> = {},
): DecideInput => ({ operation: 'UPDATE', oldObject: before, object, state: [before, ...state], ...extra });
const denyTrap = { forecast: { deny: ['trap'] } };

runTable(t, 'FORECAST', [
  { name: 'by default a finding is no violation', input: update(), want: [] },
  {
    name: 'forecast.deny: [trap] denies the trap',
    input: update(withdrawn, [onIt], { config: denyTrap }),
    want: [
      {
        field: 'spec.kubernetes.versions',
        type: 'Forbidden',
        words: ['onto deprecated kubernetes version "1.31.2"', 'gardener/gardener#13647', "shoot 'garden-dev/a'"],
      },
    ],
  },
  {
    name: 'a withdrawn version added as preview traps no Shoot',
    input: update(asPreview, [onIt], { config: denyTrap }),
    want: [],
  },
  {
    name: 'a Shoot being deleted is not trapped',
    input: update(withdrawn, [shoot({ name: 'a', version: '1.31.1', deletionTimestamp: hoursFromNow(-1) })], {
      config: denyTrap,
    }),
    want: [],
  },
  {
    name: 'a condition not listed does not deny',
    input: update(withdrawn, [onIt], { config: { forecast: { deny: ['no-target', 'forced-soon'] } } }),
    want: [],
  },
  {
    name: 'NamespacedCloudProfile parent: a Shoot on a child profile is trapped by the parent update',
    input: update(
      withdrawn,
      [
        namespacedProfile({ name: 'dev' }),
        shoot({ name: 'b', version: '1.31.1', profile: { kind: 'NamespacedCloudProfile', name: 'dev' } }),
      ],
      { config: denyTrap },
    ),
    want: [{ field: 'spec.kubernetes.versions', words: ["shoot 'garden-dev/b'"] }],
  },
  {
    name: 'NamespacedCloudProfile update: an override that expires a version soon forces its Shoots',
    input: {
      operation: 'UPDATE',
      oldObject: namespacedProfile({
        name: 'dev',
        kubernetes: [{ version: '1.31.1', expirationDate: hoursFromNow(24 * 60) }],
      }),
      object: namespacedProfile({
        name: 'dev',
        kubernetes: [{ version: '1.31.1', expirationDate: hoursFromNow(24 * 3) }],
      }),
      state: [
        cloudProfile({
          kubernetes: [
            '1.32.0',
            { version: '1.31.1', classification: 'deprecated', expirationDate: hoursFromNow(24 * 30) },
          ],
        }),
        shoot({ name: 'c', version: '1.31.1', profile: { kind: 'NamespacedCloudProfile', name: 'dev' } }),
      ],
      config: { forecast: { deny: ['forced-soon'] } },
    },
    want: [
      {
        field: 'spec.kubernetes.versions',
        words: ['forced update moves within days', 'kubernetes version "1.31.1"', "shoot 'garden-dev/c'"],
      },
    ],
  },
]);

t.test('the findings are warnings unless denied, and never both', async (t) => {
  const warned = decide(update());
  t.ok(warned.allowed);
  t.ok(
    warned.warnings.some((w) =>
      w.startsWith('maintenance would move 1 Shoot onto deprecated Kubernetes version "1.31.2"'),
    ),
    'warned',
    { warnings: warned.warnings },
  );
  const denied = decide(update(withdrawn, [onIt], { config: denyTrap }));
  t.notOk(denied.allowed);
  t.notOk(
    denied.warnings.some((w) => w.startsWith('maintenance would move')),
    'a denied finding is not also a warning',
  );
  const off = decide(update(withdrawn, [onIt], { config: { forecast: { warn: false } } }));
  t.notOk(
    off.warnings.some((w) => w.startsWith('maintenance would move')),
    'forecast.warn: false says nothing',
  );
});

t.test('the state: warnings never wait for it, a configured denial does', async (t) => {
  const unsynced = decide(update(withdrawn, [onIt], { synced: false }));
  t.ok(unsynced.allowed, 'without forecast.deny an unsynced state denies nothing');
  const strict = decide(update(withdrawn, [onIt], { synced: false, config: denyTrap }));
  t.notOk(strict.allowed, 'with forecast.deny the webhook cannot know, so it denies');
  t.ok(
    strict.violations.some((v) => v.rule === 'FORECAST' && v.message.startsWith('cluster state not ready')),
    'as not ready',
    { violations: strict.violations, expected: NOT_READY_MESSAGE },
  );
});
