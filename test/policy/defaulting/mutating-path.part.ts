import t from '../../helpers/parts.js';
import { staticState } from '../../../src/cluster/static-state.js';
import type { MutationOptions } from '../../../src/policy/defaulting/index.js';
import { applyMutatingPath } from '../../../src/policy/defaulting/index.js';
import { MANAGED_VERSIONS_ANNOTATION } from '../../../src/policy/defaulting/lifecycle.js';
import { jsonEqual } from '../../../src/util/json-equal.js';
import type { CloudProfile, ExpirableVersion } from '../../../src/api/types.js';
import { resolveConfig } from '../../../src/config.js';
import type { ConfigInput } from '../../helpers/objects.js';
import { cloudProfile, config, decide, image, NOW, request } from '../../helpers/objects.js';

const opts = (c = config()): MutationOptions => ({ now: NOW, config: c, state: staticState([]) });

const classified = () =>
  cloudProfile({
    kubernetes: [
      { version: '1.30.1', classification: 'deprecated', expirationDate: '2026-12-01T00:00:00Z' },
      { version: '1.31.0', classification: 'supported' },
    ],
    images: [image('gardenlinux', [{ version: '1592.1.0', classification: 'supported' }])],
  });

/** A profile as most landscapes have one: versions without any classification. */
const plain = (extra: Partial<Parameters<typeof cloudProfile>[0]> = {}) =>
  cloudProfile({
    kubernetes: ['1.29.5', '1.30.1', '1.30.2', '1.31.0'],
    images: [image('gardenlinux', ['1592.1.0', '1592.2.0'])],
    ...extra,
  });

/** The product defaults, with lifecycle defaulting on as the config ships it. */
const productDefaults = (overrides: ConfigInput = {}) => ({
  lifecycleDefaulting: true,
  lifecycleGate: resolveConfig({}).featureGates.VersionClassificationLifecycle,
  config: overrides,
});

const anyLifecycle = (p: CloudProfile) =>
  [...p.spec.kubernetes.versions, ...p.spec.machineImages.flatMap((i) => i.versions)].some(
    (v: ExpirableVersion) => v.lifecycle !== undefined,
  );

t.test('nothing to default: the request object is judged as sent, with no copy', async (t) => {
  const object = classified();
  t.equal(applyMutatingPath(request({ operation: 'CREATE', object }), opts()), undefined);
});

t.test('Gardener defaults are applied to a copy; the request object is never changed', async (t) => {
  const object = classified();
  delete object.spec.machineImages[0]!.updateStrategy;
  delete object.spec.machineImages[0]!.versions[0]!.cri;
  const before = structuredClone(object);
  const result = applyMutatingPath(request({ operation: 'CREATE', object }), opts());
  t.ok(result?.mutated);
  const mutated = result!.object as CloudProfile;
  t.equal(mutated.spec.machineImages[0]!.updateStrategy, 'major');
  t.same(mutated.spec.machineImages[0]!.versions[0]!.cri, [{ name: 'containerd' }]);
  t.same(object, before, 'the original is untouched');
  t.equal(mutated.spec.regions, object.spec.regions, 'parts defaulting never touches are shared, not copied');
});

t.test('lifecycle defaulting of a plain version leaves the request object alone too', async (t) => {
  const object = cloudProfile({ kubernetes: ['1.31.0'] });
  const before = structuredClone(object);
  const result = applyMutatingPath(request({ operation: 'CREATE', object }), opts());
  t.ok(result?.mutated);
  t.same((result!.object as CloudProfile).spec.kubernetes.versions[0]!.lifecycle, [{ classification: 'supported' }]);
  t.ok((result!.object as CloudProfile).metadata.annotations?.[MANAGED_VERSIONS_ANNOTATION]);
  t.same(object, before);
});

t.test('work that changes nothing reports no mutation and returns the original', async (t) => {
  // A managed version re-sent with exactly its stored lifecycle: the path runs, nothing changes.
  const first = applyMutatingPath(
    request({ operation: 'CREATE', object: cloudProfile({ kubernetes: ['1.31.0'] }) }),
    opts(),
  );
  const stored = first!.object as CloudProfile;
  const again = applyMutatingPath(
    request({ operation: 'UPDATE', object: structuredClone(stored), oldObject: stored }),
    opts(),
  );
  t.equal(again?.mutated, false);
});

t.test('with the default gate (off) the path writes only legacy classification and expirationDate', async (t) => {
  t.equal(resolveConfig({}).featureGates.VersionClassificationLifecycle, false, 'the default gate is off');
  const created = decide({ operation: 'CREATE', object: plain(), ...productDefaults() });
  const stored = created.object as CloudProfile;
  t.notOk(anyLifecycle(stored), 'no lifecycle anywhere on CREATE');
  t.same(stored.spec.kubernetes.versions, [
    { version: '1.29.5', classification: 'supported' },
    { version: '1.30.1', classification: 'deprecated', expirationDate: '2026-12-30T00:00:00Z' },
    { version: '1.30.2', classification: 'supported' },
    { version: '1.31.0', classification: 'supported' },
  ]);
  t.same(created.violations, [], 'a default gardener-apiserver would store it');

  // A managed version superseded later: still legacy fields, never a lifecycle.
  const next = decide({
    operation: 'UPDATE',
    object: plain({ kubernetes: ['1.29.5', '1.30.1', '1.30.2', '1.31.0', '1.31.1'] }),
    oldObject: stored,
    ...productDefaults(),
  });
  const after = next.object as CloudProfile;
  t.notOk(anyLifecycle(after), 'no lifecycle anywhere on UPDATE');
  t.same(after.spec.kubernetes.versions.slice(3), [
    { version: '1.31.0', classification: 'deprecated', expirationDate: '2026-12-30T00:00:00Z' },
    { version: '1.31.1', classification: 'supported' },
  ]);
  t.same(next.violations, []);
});

t.test('with the gate on the path writes lifecycles', async (t) => {
  const created = decide({
    operation: 'CREATE',
    object: plain(),
    ...productDefaults({ featureGates: { VersionClassificationLifecycle: true } }),
  });
  const stored = created.object as CloudProfile;
  t.ok(
    stored.spec.kubernetes.versions.every(
      (v) => Array.isArray(v.lifecycle) && v.classification === undefined && v.expirationDate === undefined,
    ),
  );
});

for (const gate of [false, true]) {
  t.test(
    `a label-only edit of a profile with plain versions changes nothing (gate ${gate ? 'on' : 'off'})`,
    async (t) => {
      const stored = plain();
      const edited = structuredClone(stored);
      edited.metadata.labels = { team: 'platform' };
      const d = decide({
        operation: 'UPDATE',
        object: edited,
        oldObject: stored,
        lifecycleDefaulting: true,
        lifecycleGate: gate,
      });
      t.equal(d.mutated, false, 'no patch');
      t.same(d.object, edited, 'the versions stay as the operator wrote them');
      t.same(d.violations, []);
      t.equal(
        applyMutatingPath(request({ operation: 'UPDATE', object: edited, oldObject: stored }), opts(config({}, gate))),
        undefined,
        'the path does not even copy the object',
      );
    },
  );

  t.test(`re-applying the same manifest twice changes nothing (gate ${gate ? 'on' : 'off'})`, async (t) => {
    const manifest = plain({ kubernetes: ['1.29.5', '1.30.1', '1.30.2', '1.31.0', '1.31.1'] });
    const created = decide({
      operation: 'CREATE',
      object: structuredClone(manifest),
      lifecycleDefaulting: true,
      lifecycleGate: gate,
    });
    const stored = created.object as CloudProfile;
    t.ok(
      stored.metadata.annotations?.[MANAGED_VERSIONS_ANNOTATION],
      'CREATE defaulted every version and recorded them',
    );
    // The manifest never carries the annotation; kubectl edit sends back the stored object, which does.
    for (const [what, again] of [
      ['without the annotation', manifest],
      ['with the annotation', stored],
    ] as const) {
      for (const round of [1, 2]) {
        const d = decide({
          operation: 'UPDATE',
          object: structuredClone(again),
          oldObject: stored,
          lifecycleDefaulting: true,
          lifecycleGate: gate,
        });
        t.same(d.object, stored, `${what}, apply ${round}: the stored object is unchanged`);
        t.same(d.allWarnings, [], `${what}, apply ${round}: nothing to say`);
      }
    }
  });

  t.test(`an UPDATE defaults only versions the old object did not have (gate ${gate ? 'on' : 'off'})`, async (t) => {
    const stored = plain();
    const object = plain({
      kubernetes: ['1.29.5', '1.30.1', '1.30.2', '1.31.0', '1.31.1'],
      images: [image('gardenlinux', ['1592.1.0', '1592.2.0', '1592.2.1']), image('suse', ['15.6'])],
    });
    const d = decide({
      operation: 'UPDATE',
      object,
      oldObject: stored,
      lifecycleDefaulting: true,
      lifecycleGate: gate,
    });
    const after = d.object as CloudProfile;
    const classifiedVersions = (versions: ExpirableVersion[]) =>
      versions.filter((v) => v.lifecycle !== undefined || v.classification !== undefined).map((v) => v.version);
    t.same(classifiedVersions(after.spec.kubernetes.versions), ['1.31.1'], 'the new Kubernetes version only');
    t.same(classifiedVersions(after.spec.machineImages[0]!.versions), ['1592.2.1'], 'the new image version only');
    t.same(classifiedVersions(after.spec.machineImages[1]!.versions), ['15.6'], 'every version of a new image');
    t.same(JSON.parse(after.metadata.annotations![MANAGED_VERSIONS_ANNOTATION]!), {
      kubernetes: ['1.31.1'],
      machineImages: { gardenlinux: ['1592.2.1'], suse: ['15.6'] },
    });
    t.same(d.violations, []);
  });
}

t.test('jsonEqual compares JSON structurally, ignoring key order and undefined members', async (t) => {
  t.ok(jsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }));
  t.ok(jsonEqual({ a: 1, u: undefined }, { a: 1 }));
  t.notOk(jsonEqual({ a: 1 }, { a: 2 }));
  t.notOk(jsonEqual([1, 2], [2, 1]));
  t.notOk(jsonEqual({ a: [] }, { a: {} }));
  t.notOk(jsonEqual(null, {}));
  t.notOk(jsonEqual({ a: 1 }, { a: 1, b: 2 }));
});
