// What the webhook reads of the stored object (src/admission/stored.ts): the same decision as on
// the whole object for everything Gardener can store, and a bounded read of anything claimed.
import t from '../helpers/parts.js';
import { STORED_READ } from '../../src/admission/stored.js';
import { toPolicyRequest } from '../../src/admission/request.js';
import type { AdmissionRequest } from '../../src/admission/review.js';
import { staticState } from '../../src/cluster/static-state.js';
import type { CloudProfile, Shoot } from '../../src/api/types.js';
import { evaluate } from '../../src/policy/evaluate.js';
import type { PolicyRequest } from '../../src/policy/rule.js';
import { caseInput, loadCases } from '../helpers/cases.js';
import { cloudProfile, config, image, namespacedProfile, NOW, request, shoot } from '../helpers/objects.js';
import { review } from '../helpers/server.js';

const admissionRequest = (operation: 'UPDATE' | 'DELETE', object: unknown, oldObject: unknown) =>
  review({
    operation,
    ...(object ? { object } : {}),
    oldObject,
  }).request as unknown as AdmissionRequest;

/** The request as the webhook maps it, or the test fails. */
function mapped(operation: 'UPDATE' | 'DELETE', object: unknown, oldObject: unknown): PolicyRequest {
  const m = toPolicyRequest(admissionRequest(operation, structuredClone(object), structuredClone(oldObject)));
  if (m.outcome !== 'policed') throw new Error(`not policed: ${JSON.stringify(m)}`);
  return m.request;
}

t.test(
  'every public UPDATE and DELETE is decided on what the webhook reads as on the whole stored object',
  async (t) => {
    let compared = 0;
    for (const c of loadCases()) {
      if (c.operation === 'CREATE' || !c.oldObject) continue;
      for (const defaulting of [false, true]) {
        const input = caseInput(c, defaulting);
        const opts = {
          now: input.now!,
          config: config({ defaulting: { lifecycle: { enabled: defaulting } } }, input.lifecycleGate),
          state: staticState(input.state ?? []),
        };
        const whole = evaluate({ ...request(input), user: 'alice@example.com' }, opts);
        const read = evaluate(mapped(c.operation, input.object, input.oldObject), opts);
        t.same(
          { allowed: read.allowed, violations: read.violations, warnings: read.allWarnings, patch: read.patch },
          { allowed: whole.allowed, violations: whole.violations, warnings: whole.allWarnings, patch: whole.patch },
          `${c.id} (defaulting ${defaulting ? 'on' : 'off'})`,
        );
        compared++;
      }
    }
    t.ok(compared > 50, `${compared} decisions compared`);
  },
);

t.test('a Shoot UPDATE reads the pools the object keeps, the first of each name', async (t) => {
  const next = shoot({
    name: 'big',
    workers: [
      { name: 'a', image: ['gardenlinux', '1592.1.0'] },
      { name: 'b', image: ['gardenlinux', '1592.1.0'] },
    ],
  });
  const claimed: Shoot = structuredClone(next);
  const pool = (name: string, version: string) => ({
    name,
    machine: { type: 'm5.large', image: { name: 'gardenlinux', version } },
  });
  claimed.spec.provider!.workers = [
    ...Array.from({ length: 50_000 }, (_, i) => pool(`gone-${i}`, '1.0.0')),
    pool('b', '1592.0.0'),
    pool('a', '1592.1.0'),
    pool('b', '9.9.9'),
  ];
  const old = mapped('UPDATE', next, claimed).oldObject as Shoot;
  t.same(
    old.spec.provider!.workers!.map((w) => [w.name, w.machine?.image?.version]),
    [
      ['b', '1592.0.0'],
      ['a', '1592.1.0'],
    ],
  );
  t.same(Object.keys(old.spec).sort(), ['kubernetes', 'provider']);
});

/** A profile whose Kubernetes list holds `n` plain versions from 1.0.0 up. */
function manyVersions(n: number, name = 'aws'): CloudProfile {
  const p = cloudProfile({ name, kubernetes: ['1.31.0'], images: [image('gardenlinux', ['1592.1.0'])] });
  p.spec.kubernetes.versions = Array.from({ length: n }, (_, i) => ({
    version: `1.${Math.floor(i / 100)}.${i % 100}`,
  }));
  return p;
}

t.test('a profile UPDATE that removes more than can be read whole reads the removed versions by name', async (t) => {
  const next = cloudProfile({ name: 'aws', kubernetes: ['1.99.0'], images: [image('gardenlinux', ['1592.1.0'])] });
  const old = manyVersions(STORED_READ.removedWhole + 5_000);
  old.spec.kubernetes.versions.push({ version: '1.99.0' }, { version: '1.99.0', classification: 'supported' });
  old.spec.machineImages.push(image('gone', ['1.0.0', '2.0.0']));
  const req = mapped('UPDATE', next, old);
  const read = req.oldObject as CloudProfile;
  t.same(
    read.spec.kubernetes.versions,
    [{ version: '1.99.0' }, { version: '1.99.0', classification: 'supported' }],
    'the stored list keeps only what the object lists, the first and last of a repeated version',
  );
  t.same(
    read.spec.machineImages.map((i) => i.name),
    ['gardenlinux'],
    'an image removed whole is read by name',
  );
  const removed = req.stored!.removed!;
  t.equal(removed.count, STORED_READ.removedWhole + 5_000 + 2 + 1);
  t.ok(removed.kubernetes.has('1.0.0') && removed.kubernetes.has('1.45.99'));
  t.notOk(removed.kubernetes.has('1.99.0'));
  t.ok(removed.imageVersions.has('gone\u00002.0.0') && removed.images.has('gone'));

  // IN-USE finds, among them, the versions in use: of the control plane, and of an image removed whole.
  const users = [
    shoot({ name: 'on-removed', profile: 'aws', version: '1.20.5' }),
    shoot({ name: 'on-kept', profile: 'aws', version: '1.99.0' }),
    shoot({
      name: 'on-gone-image',
      profile: 'aws',
      version: '1.99.0',
      workers: [{ name: 'w', image: ['gone', '2.0.0'] }],
    }),
  ];
  const decision = evaluate(req, { now: NOW, config: config(), state: staticState([old, ...users]) });
  t.notOk(decision.allowed);
  const messages = decision.violations.filter((v) => v.rule === 'IN-USE').map((v) => v.message);
  t.equal(messages.length, 2, messages.join('\n'));
  t.match(
    messages[0],
    /unable to delete Kubernetes version "1\.20\.5" from CloudProfile "aws" - version is still in use by shoot 'garden-dev\/on-removed'/,
  );
  t.match(messages[1], /unable to delete Machine image version 'gone\/2\.0\.0'.*on-gone-image/);

  const quiet = evaluate(req, { now: NOW, config: config(), state: staticState([old, users[1]!]) });
  t.same(
    quiet.violations.filter((v) => v.rule === 'IN-USE'),
    [],
    'nothing in use among them: IN-USE allows the removal',
  );
});

t.test('up to STORED_READ.removedWhole removed entries, the stored lists are read whole', async (t) => {
  const next = cloudProfile({ name: 'aws', kubernetes: ['1.99.0'] });
  const old = manyVersions(STORED_READ.removedWhole);
  old.spec.kubernetes.versions.push({ version: '1.99.0' });
  const req = mapped('UPDATE', next, old);
  t.equal(req.stored, undefined);
  t.equal((req.oldObject as CloudProfile).spec.kubernetes.versions.length, STORED_READ.removedWhole + 1);
});

t.test('a stored lifecycle is read up to STORED_READ.lifecycleStages stages', async (t) => {
  const next = manyVersions(10);
  const old = manyVersions(STORED_READ.removedWhole + 1);
  old.spec.kubernetes.versions[0]!.lifecycle = Array.from({ length: 10_000 }, () => ({ classification: 'supported' }));
  const read = mapped('UPDATE', next, old).oldObject as CloudProfile;
  t.equal(read.spec.kubernetes.versions[0]!.lifecycle!.length, STORED_READ.lifecycleStages);
});

t.test("a NamespacedCloudProfile's unchanged spec and metadata are decided on the whole stored object", async (t) => {
  const ncp = namespacedProfile({
    name: 'team',
    parent: 'aws',
    kubernetes: [{ version: '1.31.0', expirationDate: '2027-01-01T00:00:00Z' }],
  });
  (ncp.spec as Record<string, unknown>).regions = [{ name: 'region-1' }];
  const same = mapped('UPDATE', ncp, ncp);
  t.same(same.stored, { sameSpec: true, sameMetadata: true });
  const other = structuredClone(ncp);
  (other.spec as Record<string, unknown>).regions = [{ name: 'region-2' }];
  (other.metadata as Record<string, unknown>).labels = { team: 'x' };
  t.same(
    mapped('UPDATE', ncp, other).stored,
    { sameSpec: false, sameMetadata: false },
    'a field the rules do not read still counts',
  );
});

t.test('metadata: name, namespace, deletionTimestamp and the managed-versions annotation', async (t) => {
  const next = cloudProfile({ name: 'aws' });
  const old = cloudProfile({
    name: 'aws',
    deletionTimestamp: '2026-01-01T00:00:00Z',
    annotations: {
      'version-policy.gardener.cloud/managed-versions': '{"kubernetes":[],"machineImages":{}}',
      big: 'x'.repeat(100_000),
    },
  });
  t.same((mapped('UPDATE', next, old).oldObject as CloudProfile).metadata, {
    name: 'aws',
    deletionTimestamp: '2026-01-01T00:00:00Z',
    annotations: { 'version-policy.gardener.cloud/managed-versions': '{"kubernetes":[],"machineImages":{}}' },
  });
});
