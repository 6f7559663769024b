// The mutating path's JSON Patch, built from the levels defaulting writes: each case applies the
// operations to the object as sent (with fast-json-patch, an independent RFC 6902 implementation)
// and must get the defaulted object back, with nothing outside those levels touched.
import jsonpatch from 'fast-json-patch';
import t from '../../helpers/parts.js';
import { staticState } from '../../../src/cluster/static-state.js';
import { applyMutatingPath } from '../../../src/policy/defaulting/index.js';
import type { JsonPatchOperation } from '../../../src/policy/defaulting/patch.js';
import { copyDefaultable, defaultingPatch } from '../../../src/policy/defaulting/patch.js';
import type { CloudProfile } from '../../../src/api/types.js';
import { NOW, cloudProfile, config, request } from '../../helpers/objects.js';

function applied(original: CloudProfile, ops: readonly JsonPatchOperation[]): unknown {
  return jsonpatch.applyPatch(
    structuredClone(original),
    structuredClone([...ops]) as jsonpatch.Operation[],
    true,
    false,
  ).newDocument;
}

function profile(): CloudProfile {
  const p = cloudProfile({ name: 'aws', kubernetes: ['1.30.4', '1.31.2'] });
  p.spec.machineImages = [
    {
      name: 'gardenlinux',
      updateStrategy: 'major',
      versions: [{ version: '1592.1.0', cri: [{ name: 'containerd' }], architectures: ['amd64'] }],
    },
  ];
  return p;
}

t.test('an unchanged copy gives no operations', async (t) => {
  const p = profile();
  t.strictSame(defaultingPatch(p, copyDefaultable(p)), []);
  t.strictSame(defaultingPatch(p, p), []);
});

t.test('each kind of change at each level, escaped and applicable', async (t) => {
  const original = profile();
  original.metadata.annotations = { 'a/b~c': 'x', keep: 'y' };
  original.spec.kubernetes.versions[0]!.classification = 'supported';
  original.spec.kubernetes.versions[0]!.expirationDate = '2027-01-01T00:00:00Z';
  original.spec.kubernetes.versions[1]!.lifecycle = [{ classification: 'supported' }];
  const copy = copyDefaultable(original);
  copy.metadata.annotations!['a/b~c'] = 'changed';
  delete copy.metadata.annotations!.keep;
  copy.metadata.annotations!['version-policy.gardener.cloud/managed-versions'] = '{}';
  const legacy = copy.spec.kubernetes.versions[0]!;
  delete legacy.classification;
  delete legacy.expirationDate;
  legacy.lifecycle = [
    { classification: 'deprecated' },
    { classification: 'expired', startTime: '2027-01-01T00:00:00Z' },
  ];
  copy.spec.kubernetes.versions[1]!.lifecycle = [{ classification: 'supported' }]; // a fresh array, equal: no operation
  copy.spec.machineImages[0]!.updateStrategy = 'minor';
  copy.spec.machineImages[0]!.versions[0]!.cri = undefined as never; // undefined is absent, as in JSON

  const ops = defaultingPatch(original, copy);
  t.strictSame(
    [...ops].sort((a, b) => a.path.localeCompare(b.path) || a.op.localeCompare(b.op)),
    [
      { op: 'replace', path: '/metadata/annotations/a~1b~0c', value: 'changed' },
      { op: 'remove', path: '/metadata/annotations/keep' },
      { op: 'add', path: '/metadata/annotations/version-policy.gardener.cloud~1managed-versions', value: '{}' },
      { op: 'remove', path: '/spec/kubernetes/versions/0/classification' },
      { op: 'remove', path: '/spec/kubernetes/versions/0/expirationDate' },
      { op: 'add', path: '/spec/kubernetes/versions/0/lifecycle', value: legacy.lifecycle },
      { op: 'replace', path: '/spec/machineImages/0/updateStrategy', value: 'minor' },
      { op: 'remove', path: '/spec/machineImages/0/versions/0/cri' },
    ],
  );
  t.strictSame(applied(original, ops), JSON.parse(JSON.stringify(copy)), 'applied to the original, they give the copy');
});

t.test('annotations added whole, and removed whole', async (t) => {
  const bare = profile();
  const annotated = copyDefaultable(bare);
  annotated.metadata.annotations = { 'version-policy.gardener.cloud/managed-versions': '{}' };
  t.strictSame(defaultingPatch(bare, annotated), [
    { op: 'add', path: '/metadata/annotations', value: { 'version-policy.gardener.cloud/managed-versions': '{}' } },
  ]);
  const cleared = copyDefaultable(annotated);
  delete cleared.metadata.annotations;
  t.strictSame(defaultingPatch(annotated, cleared), [{ op: 'remove', path: '/metadata/annotations' }]);
});

t.test('a null the request sent is removed when defaulting drops the field, kept otherwise', async (t) => {
  const original = profile();
  (original.spec.kubernetes.versions[0] as Record<string, unknown>).lifecycle = null;
  const same = copyDefaultable(original);
  t.strictSame(defaultingPatch(original, same), [], 'null left as it was');
  const dropped = copyDefaultable(original);
  delete dropped.spec.kubernetes.versions[0]!.lifecycle;
  t.strictSame(defaultingPatch(original, dropped), [{ op: 'remove', path: '/spec/kubernetes/versions/0/lifecycle' }]);
});

t.test('the mutating path: its patch turns what was sent into what it stores, on a large plain profile', async (t) => {
  // 100 minors × 60 patches and 40 images × 100 versions: 10,000 versions, every one defaulted,
  // far beyond a real profile (about 60 Kubernetes versions and a few hundred image versions).
  const kubernetes: string[] = [];
  for (let m = 0; m < 100; m++) for (let p = 0; p < 60; p++) kubernetes.push(`1.${m}.${p}`);
  const sent = cloudProfile({ name: 'large', kubernetes });
  sent.spec.machineImages = Array.from({ length: 40 }, (_, i) => ({
    name: `image-${i}`,
    versions: Array.from({ length: 100 }, (_, v) => ({ version: `${v}.0.0` })),
  }));
  const before = structuredClone(sent);
  const result = applyMutatingPath(request({ operation: 'CREATE', object: sent }), {
    now: NOW,
    config: config({ defaulting: { lifecycle: { enabled: true } } }, true),
    state: staticState([]),
  });
  t.ok(result?.mutated, 'mutated');
  t.strictSame(sent, before, "the request's object is left as it was sent");
  t.strictSame(
    applied(before, result!.patch),
    JSON.parse(JSON.stringify(result!.object)),
    'the patch gives the stored object',
  );
  t.strictSame(
    result!.patch.length,
    jsonpatch.compare(before, result!.object).length,
    'one operation per changed field, as a whole-object diff finds',
  );
});

t.test('nothing to default: no patch, and the object is the one sent', async (t) => {
  const sent = profile();
  sent.spec.kubernetes.versions.forEach((v) => (v.lifecycle = [{ classification: 'supported' }]));
  sent.spec.kubernetes.versions[0]!.lifecycle = [
    { classification: 'deprecated' },
    { classification: 'expired', startTime: '2099-01-01T00:00:00Z' },
  ];
  sent.spec.machineImages[0]!.versions[0]!.lifecycle = [{ classification: 'supported' }];
  const result = applyMutatingPath(request({ operation: 'CREATE', object: sent }), {
    now: NOW,
    config: config({ defaulting: { lifecycle: { enabled: true } } }, true),
    state: staticState([]),
  });
  t.equal(result?.mutated ?? false, false);
  t.strictSame(result?.patch ?? [], []);
});
