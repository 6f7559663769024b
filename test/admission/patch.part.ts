// The JSON Patch is the diff between the original and the defaulted copy, in the base64 form
// kube-apiserver expects; applying it to the original gives the defaulted object back.
import jsonpatch from 'fast-json-patch';
import t from '../helpers/parts.js';
import { encodePatch, jsonPatch } from '../../src/admission/patch.js';
import { patched } from '../../src/admission/response.js';
import type { CloudProfile } from '../../src/api/types.js';
import { cloudProfile } from '../helpers/objects.js';

function original(): CloudProfile {
  const p = cloudProfile({ name: 'aws', kubernetes: ['1.30.4', '1.31.2'] });
  p.spec.machineImages = [{ name: 'gardenlinux', versions: [{ version: '1592.1.0' }] }];
  return p;
}

/** What DEFAULT-GARDENER and DEFAULT-LIFECYCLE would do to `original()`, written out by hand. */
function defaulted(): CloudProfile {
  const p = original();
  p.metadata.annotations = { 'version-policy.gardener.cloud/managed-versions': '1.30.4,1.31.2' };
  p.spec.kubernetes.versions[0]!.lifecycle = [
    { classification: 'deprecated' },
    { classification: 'expired', startTime: '2026-12-01T00:00:00Z' },
  ];
  p.spec.kubernetes.versions[1]!.lifecycle = [{ classification: 'supported' }];
  const image = p.spec.machineImages[0]!;
  image.updateStrategy = 'major';
  image.versions[0] = { ...image.versions[0]!, cri: [{ name: 'containerd' }], architectures: ['amd64'] };
  return p;
}

t.test('the diff holds exactly the defaulted fields, with RFC 6901 escaping', async (t) => {
  const ops = jsonPatch(original(), defaulted());
  t.same(
    [...ops].sort((a, b) => a.path.localeCompare(b.path)),
    [
      {
        op: 'add',
        path: '/metadata/annotations',
        value: { 'version-policy.gardener.cloud/managed-versions': '1.30.4,1.31.2' },
      },
      {
        op: 'add',
        path: '/spec/kubernetes/versions/0/lifecycle',
        value: [{ classification: 'deprecated' }, { classification: 'expired', startTime: '2026-12-01T00:00:00Z' }],
      },
      { op: 'add', path: '/spec/kubernetes/versions/1/lifecycle', value: [{ classification: 'supported' }] },
      { op: 'add', path: '/spec/machineImages/0/updateStrategy', value: 'major' },
      { op: 'add', path: '/spec/machineImages/0/versions/0/architectures', value: ['amd64'] },
      { op: 'add', path: '/spec/machineImages/0/versions/0/cri', value: [{ name: 'containerd' }] },
    ],
  );
  const withAnnotations = original();
  withAnnotations.metadata.annotations = { keep: 'x' };
  const more = structuredClone(withAnnotations);
  more.metadata.annotations = { keep: 'x', 'a/b~c': 'y' };
  t.same(
    jsonPatch(withAnnotations, more),
    [{ op: 'add', path: '/metadata/annotations/a~1b~0c', value: 'y' }],
    '/ and ~ in keys are escaped',
  );
});

t.test('applied to the original, the patch yields the defaulted object', async (t) => {
  const ops = jsonPatch(original(), defaulted());
  t.same(jsonpatch.applyPatch(original(), ops, true, false).newDocument, defaulted());
});

t.test('nothing changed, nothing to patch', async (t) => {
  const p = original();
  t.same(jsonPatch(p, p), []);
  t.same(jsonPatch(p, structuredClone(p)), []);
  t.same(patched('u', []), { uid: 'u', allowed: true }, 'no patchType without operations');
});

t.test('patched() carries the operations base64-encoded with patchType JSONPatch', async (t) => {
  const ops = jsonPatch(original(), defaulted());
  const r = patched('u', ops, ['defaulted 2 versions']);
  t.equal(r.patchType, 'JSONPatch');
  t.equal(r.patch, encodePatch(ops));
  t.same(JSON.parse(Buffer.from(r.patch ?? '', 'base64').toString('utf8')), ops);
  t.same(r.warnings, ['defaulted 2 versions']);
});
