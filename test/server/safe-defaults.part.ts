// Issue 12 over HTTPS, with the product's own defaults (no test overrides): what /mutate writes,
// what it leaves alone, what /validate says and how much. Each point on both sides: defaulted and
// left alone, allowed and denied. The in-process tables (test/policy/defaulting/*) cover the policy
// in depth; this file shows that the served webhook, configured as it ships, does the same.
import jsonpatch from 'fast-json-patch';
import t, { type Test } from '../helpers/parts.js';
import { resolveConfig } from '../../src/config.js';
import type { CloudProfile, ExpirableVersion, PolicedObject } from '../../src/api/types.js';
import { MAX_WARNING_BYTES, MAX_WARNING_LENGTH, MAX_WARNINGS } from '../../src/policy/warnings/budget.js';
import { cloudProfile, hoursFromNow, image, namespacedProfile, shoot } from '../helpers/objects.js';
import { review, startServer, type ReviewReply, type TestServer, type TestServerOptions } from '../helpers/server.js';

type Op = 'CREATE' | 'UPDATE';

async function serve(t: Test, opts: TestServerOptions = {}): Promise<TestServer> {
  const s = await startServer({ productDefaults: true, ...opts });
  t.teardown(s.close);
  return s;
}

async function call(
  s: TestServer,
  path: '/mutate' | '/validate',
  operation: Op,
  object: PolicedObject,
  oldObject?: PolicedObject,
) {
  const res = await s.post(path, review({ operation, object, ...(oldObject ? { oldObject } : {}) }));
  if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}: ${res.text}`);
  return (JSON.parse(res.text) as ReviewReply).response;
}

/** The object kube-apiserver stores after /mutate's answer: the patch applied to a copy. */
function patched(object: PolicedObject, response: ReviewReply['response']): PolicedObject {
  if (!response.patch) return object;
  const ops = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as jsonpatch.Operation[];
  return jsonpatch.applyPatch(structuredClone(object), ops, true, false).newDocument;
}

const versions = (p: PolicedObject): ExpirableVersion[] => {
  const spec = (p as CloudProfile).spec;
  return [...spec.kubernetes.versions, ...spec.machineImages.flatMap((i) => i.versions)];
};

/** A profile as most landscapes have one: versions without any classification. */
const plain = () =>
  cloudProfile({
    kubernetes: ['1.28.5', '1.29.5', '1.30.1', '1.30.2', '1.31.0'],
    images: [image('gardenlinux', ['1592.1.0', '1592.2.0'])],
  });
const labelled = (p: CloudProfile): CloudProfile => ({
  ...p,
  metadata: { ...p.metadata, labels: { team: 'platform' } },
});

t.test("the shipped defaults are Gardener's: gate off, defaulting on, adoption off", async (t) => {
  const c = resolveConfig({});
  t.equal(c.featureGates.VersionClassificationLifecycle, false);
  t.equal(c.defaulting.lifecycle.enabled, true);
  t.equal(c.defaulting.lifecycle.adoptExisting, false);
  t.equal(c.defaulting.lifecycle.adoptionNotice, '720h');
});

t.test(
  '/mutate CREATE, gate off (default): legacy classification and expirationDate only, never a lifecycle',
  async (t) => {
    const s = await serve(t);
    const object = plain();
    const res = await call(s, '/mutate', 'CREATE', object);
    t.equal(res.allowed, true);
    const stored = patched(object, res);
    t.notOk(
      versions(stored).some((v) => v.lifecycle !== undefined),
      'no lifecycle written',
    );
    t.ok(
      versions(stored).every((v) => v.classification !== undefined),
      'every new version classified',
    );
    t.ok(versions(stored).some((v) => v.classification === 'supported'));
    t.ok((res.warnings ?? []).length > 0, 'what was defaulted is said');
  },
);

t.test('/mutate CREATE, gate declared on: lifecycles, no legacy fields', async (t) => {
  const s = await serve(t, { config: { featureGates: { VersionClassificationLifecycle: true } } });
  const object = plain();
  const stored = patched(object, await call(s, '/mutate', 'CREATE', object));
  t.ok(
    versions(stored).every((v) => Array.isArray(v.lifecycle) && v.lifecycle.length > 0),
    'every new version has a lifecycle',
  );
  t.notOk(
    versions(stored).some((v) => v.classification !== undefined || v.expirationDate !== undefined),
    'no legacy fields',
  );
});

t.test(
  'a label-only edit of a plain profile changes nothing and says nothing; a new version is defaulted alone',
  async (t) => {
    const s = await serve(t, { state: [shoot({ name: 'a', version: '1.28.5' })] });
    const stored = plain();
    const edit = labelled(stored);
    const res = await call(s, '/mutate', 'UPDATE', edit, stored);
    t.equal(res.allowed, true);
    t.notOk(res.patch, 'no patch');
    t.same(res.warnings ?? [], [], 'no warning');
    const v = await call(s, '/validate', 'UPDATE', edit, stored);
    t.equal(v.allowed, true);

    const added = labelled(
      cloudProfile({
        kubernetes: ['1.28.5', '1.29.5', '1.30.1', '1.30.2', '1.31.0', '1.31.1'],
        images: [image('gardenlinux', ['1592.1.0', '1592.2.0'])],
      }),
    );
    const after = patched(added, await call(s, '/mutate', 'UPDATE', added, stored)) as CloudProfile;
    const changed = after.spec.kubernetes.versions.filter((x) => x.classification !== undefined).map((x) => x.version);
    t.same(changed, ['1.31.1'], 'only the version the old object did not have');
  },
);

t.test('re-applying the stored result of /mutate changes nothing (GitOps)', async (t) => {
  const s = await serve(t);
  const first = plain();
  const stored = patched(first, await call(s, '/mutate', 'CREATE', first));
  // The manifest in git is the plain one: the apply sends it again against what was stored.
  const again = await call(s, '/mutate', 'UPDATE', plain(), stored);
  t.same(patched(plain(), again), stored, 'the same stored object');
  const same = await call(s, '/mutate', 'UPDATE', stored, stored);
  t.notOk(same.patch, 'the stored object re-sent: no patch');
});

t.test(
  'adoptExisting on: existing versions adopted; one that Shoots run keeps the notice, and the warning counts them',
  async (t) => {
    const shoots = [shoot({ name: 'a', version: '1.28.5' }), shoot({ name: 'b', version: '1.28.5' })];
    const s = await serve(t, {
      state: shoots,
      config: { defaulting: { lifecycle: { adoptExisting: true, expirationUnmaintained: '24h' } } },
    });
    const stored = plain();
    const res = await call(s, '/mutate', 'UPDATE', labelled(stored), stored);
    t.equal(res.allowed, true);
    const after = patched(labelled(stored), res) as CloudProfile;
    const v1285 = after.spec.kubernetes.versions.find((v) => v.version === '1.28.5')!;
    t.same(
      [v1285.classification, v1285.expirationDate],
      ['deprecated', hoursFromNow(720)],
      'the 30-day notice, not the 24h policy',
    );
    const warning = (res.warnings ?? []).find((w) => w.startsWith('1.28.5'));
    t.ok(warning, (res.warnings ?? []).join('\n'));
    t.match(warning, /2 Shoots run it and will be force-updated from then/);
    t.match(warning, hoursFromNow(720));
  },
);

t.test('the warning budget holds over HTTPS on a realistic plain profile, on /mutate and /validate', async (t) => {
  const minors = Array.from({ length: 20 }, (_, m) => Array.from({ length: 3 }, (_, p) => `1.${m + 12}.${p}`)).flat();
  const images = Array.from({ length: 8 }, (_, i) =>
    image(
      `image-${i}`,
      Array.from({ length: 40 }, (_, v) => `${1000 + v}.0.0`),
    ),
  );
  const stored = cloudProfile({ kubernetes: minors, images });
  const s = await serve(t, { config: { defaulting: { lifecycle: { adoptExisting: true } } } });
  for (const [path, op, old] of [
    ['/mutate', 'CREATE', undefined],
    ['/mutate', 'UPDATE', stored],
    ['/validate', 'UPDATE', stored],
  ] as const) {
    const res = await call(s, path, op, labelled(stored), old);
    const said = res.warnings ?? [];
    t.ok(said.length > 0 || path === '/validate', `${path} ${op}: says something`);
    t.ok(said.length <= MAX_WARNINGS, `${path} ${op}: ${said.length} warnings`);
    t.ok(
      said.every((w) => w.length <= MAX_WARNING_LENGTH),
      `${path} ${op}: each at most ${MAX_WARNING_LENGTH} characters`,
    );
    const bytes = said.reduce((n, w) => n + Buffer.byteLength(w), 0);
    t.ok(bytes <= MAX_WARNING_BYTES, `${path} ${op}: ${bytes} bytes`);
  }
});

t.test(
  'NamespacedCloudProfile: an image entry with only updateStrategy is allowed; a CloudProfile image without versions is not',
  async (t) => {
    const parent = cloudProfile({
      name: 'aws',
      kubernetes: ['1.31.0'],
      images: [image('gardenlinux', [{ version: '1592.1.0', classification: 'supported' }])],
    });
    const s = await serve(t, { state: [parent] });
    const ncp = namespacedProfile({ name: 'team', namespace: 'garden-team', parent: 'aws' }) as PolicedObject & {
      spec: Record<string, unknown>;
    };
    ncp.spec.machineImages = [{ name: 'gardenlinux', updateStrategy: 'minor' }];
    const ok = await call(s, '/validate', 'CREATE', ncp);
    t.equal(ok.allowed, true, ok.status?.message ?? '');

    const bad = cloudProfile({ name: 'other', kubernetes: ['1.31.0'] }) as PolicedObject & {
      spec: Record<string, unknown>;
    };
    bad.spec.machineImages = [{ name: 'gardenlinux', updateStrategy: 'minor' }];
    const denied = await call(s, '/validate', 'CREATE', bad);
    t.equal(denied.allowed, false);
    t.match(denied.status?.message, /spec\.machineImages\[0\]\.versions/);
  },
);
