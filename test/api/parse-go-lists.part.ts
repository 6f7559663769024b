// gardener-apiserver serializes the object it sends a webhook the way Go does: an empty
// spec.kubernetes.versions is left out (omitempty), an absent machineImages or image versions list
// is null. Measured through the real gardener-apiserver (docs/gardener-parity.md, case
// cp-k8s-versions-empty): that is the empty list, which K8S-VERSIONS and MACHINE-IMAGES judge,
// not a malformed object.
import t from '../helpers/parts.js';
import { parsePolicedObject } from '../../src/api/parse.js';
import { cloudProfile, decide, ruleIds } from '../helpers/objects.js';

t.test('a left-out kubernetes.versions is the empty list: K8S-VERSIONS, not a schema error', async (t) => {
  const p = cloudProfile() as unknown as { spec: { kubernetes: Record<string, unknown> } };
  delete p.spec.kubernetes.versions;
  t.ok(parsePolicedObject('CloudProfile', p).ok, 'the schema takes it');
  t.same(ruleIds(decide({ operation: 'CREATE', object: p as never })), ['K8S-VERSIONS']);
});

t.test('a null machineImages or image versions list is the empty list: MACHINE-IMAGES', async (t) => {
  const none = cloudProfile() as unknown as { spec: { machineImages: unknown } };
  none.spec.machineImages = null;
  t.ok(parsePolicedObject('CloudProfile', none).ok, 'null machineImages');
  t.same(ruleIds(decide({ operation: 'CREATE', object: none as never })), ['MACHINE-IMAGES']);
  const empty = cloudProfile() as unknown as { spec: { machineImages: { versions: unknown }[] } };
  empty.spec.machineImages[0]!.versions = null;
  t.ok(parsePolicedObject('CloudProfile', empty).ok, 'null versions of an image');
  t.same(ruleIds(decide({ operation: 'CREATE', object: empty as never })), ['MACHINE-IMAGES']);
});

t.test('a missing image versions list stays a schema error (Go never leaves it out)', async (t) => {
  const p = cloudProfile() as unknown as { spec: { machineImages: Record<string, unknown>[] } };
  delete p.spec.machineImages[0]!.versions;
  t.notOk(parsePolicedObject('CloudProfile', p).ok);
});
