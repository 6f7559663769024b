import t from 'tap';
import { applyMutatingPath } from '../../../src/policy/defaulting/index.js';
import { jsonEqual } from '../../../src/policy/json-equal.js';
import type { CloudProfile } from '../../../src/policy/types.js';
import { cloudProfile, config, image, NOW, request } from '../../helpers/objects.js';

const classified = () =>
  cloudProfile({
    kubernetes: [{ version: '1.30.1', classification: 'deprecated', expirationDate: '2026-12-01T00:00:00Z' }, { version: '1.31.0', classification: 'supported' }],
    images: [image('gardenlinux', [{ version: '1592.1.0', classification: 'supported' }])],
  });

t.test('nothing to default: the request object is judged as sent, with no copy', async (t) => {
  const object = classified();
  t.equal(applyMutatingPath(request({ operation: 'CREATE', object }), NOW, config()), undefined);
});

t.test('Gardener defaults are applied to a copy; the request object is never changed', async (t) => {
  const object = classified();
  delete object.spec.machineImages[0]!.updateStrategy;
  delete object.spec.machineImages[0]!.versions[0]!.cri;
  const before = structuredClone(object);
  const result = applyMutatingPath(request({ operation: 'CREATE', object }), NOW, config());
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
  const result = applyMutatingPath(request({ operation: 'CREATE', object }), NOW, config());
  t.ok(result?.mutated);
  t.same((result!.object as CloudProfile).spec.kubernetes.versions[0]!.lifecycle, [{ classification: 'supported' }]);
  t.ok((result!.object as CloudProfile).metadata.annotations?.['version-policy.gardener.cloud/managed-versions']);
  t.same(object, before);
});

t.test('work that changes nothing reports no mutation and returns the original', async (t) => {
  // A managed version re-sent with exactly its stored lifecycle: the path runs, nothing changes.
  const first = applyMutatingPath(request({ operation: 'CREATE', object: cloudProfile({ kubernetes: ['1.31.0'] }) }), NOW, config());
  const stored = first!.object as CloudProfile;
  const again = applyMutatingPath(request({ operation: 'UPDATE', object: structuredClone(stored), oldObject: stored }), NOW, config());
  t.equal(again?.mutated, false);
});

t.test('jsonEqual compares JSON structurally, ignoring key order and undefined members', async (t) => {
  t.ok(jsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }));
  t.ok(jsonEqual({ a: 1, u: undefined }, { a: 1 }));
  t.notOk(jsonEqual({ a: 1 }, { a: 2 }));
  t.notOk(jsonEqual([1, 2], [2, 1]));
  t.notOk(jsonEqual({ a: [] }, { a: {} }));
  t.notOk(jsonEqual(null, {}));
  t.notOk(jsonEqual({ a: 1 }, { a: 1, b: 2 }));
});
