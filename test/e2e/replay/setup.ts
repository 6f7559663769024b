// What a case needs before its write, created in the real gardener-apiserver as a user the chart's
// matchConditions exempt (so our webhook never judges the setup; Gardener's own admission and
// validation still do), and removed again after it.
//
// Gardener refuses some states outright: a Shoot on a version its profile does not offer, or one
// that has expired. Such a Shoot exists in a landscape because the profile changed after it was
// created, so the setup does the same: it first creates each profile with the versions the Shoots
// use made plain (no classification, expiry or lifecycle), creates the Shoots, and then replaces
// the profiles with the case's own. A `deletionTimestamp` in the case is made real: the object gets
// a finalizer of ours and is deleted. Whatever Gardener still refuses is recorded in setupNotes.
import { stringify } from 'yaml';
import { waitFor } from '../lib/control-plane.js';
import type { Kubectl } from '../lib/kubectl.js';
import type { K8sObject } from '../lib/webhook.js';
import type { ReplayCase } from './cases.js';

/** Holds objects the case has with a deletionTimestamp; removed by cleanup(). */
export const HOLD_FINALIZER = 'e2e.version-policy.gardener.cloud/hold';
/** gardener-apiserver's DeletionConfirmation admission plugin wants it on a deleted Shoot or Project. */
const CONFIRM = 'confirmation.gardener.cloud/deletion';
/** The provider and network types the filled-in Shoots use; an extension is registered for each. */
const NETWORKING = 'calico';

type Obj = K8sObject & { spec?: Record<string, unknown> };

function resourceOf(kind: string): string {
  return (
    {
      CloudProfile: 'cloudprofiles.core.gardener.cloud',
      NamespacedCloudProfile: 'namespacedcloudprofiles.core.gardener.cloud',
      Shoot: 'shoots.core.gardener.cloud',
    }[kind] ?? kind
  );
}

function ref(o: K8sObject): string[] {
  return [resourceOf(o.kind), o.metadata.name, ...(o.metadata.namespace ? ['-n', o.metadata.namespace] : [])];
}

/** The object as a client writes it: no status, no deletionTimestamp, no server-owned metadata. */
export function writable(o: K8sObject): Obj {
  const out = structuredClone(o) as Obj & { status?: unknown };
  delete out.status;
  const meta = out.metadata as Record<string, unknown>;
  for (const k of [
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'resourceVersion',
    'uid',
    'creationTimestamp',
    'generation',
    'managedFields',
  ])
    delete meta[k];
  return out;
}

interface Version {
  version: string;
  classification?: string;
  expirationDate?: string;
  lifecycle?: unknown;
  [k: string]: unknown;
}

/** The versions Shoots use, per list: Kubernetes, and per machine image name. */
function usedVersions(shoots: readonly K8sObject[]): { kubernetes: Set<string>; images: Map<string, Set<string>> } {
  const kubernetes = new Set<string>();
  const images = new Map<string, Set<string>>();
  for (const s of shoots) {
    const spec = (s as Obj).spec as
      | {
          kubernetes?: { version?: string };
          provider?: {
            workers?: {
              kubernetes?: { version?: string };
              machine?: { image?: { name?: string; version?: string } };
            }[];
          };
        }
      | undefined;
    if (spec?.kubernetes?.version) kubernetes.add(spec.kubernetes.version);
    for (const w of spec?.provider?.workers ?? []) {
      if (w.kubernetes?.version) kubernetes.add(w.kubernetes.version);
      const img = w.machine?.image;
      if (img?.name && img.version) {
        const set = images.get(img.name) ?? new Set<string>();
        set.add(img.version);
        images.set(img.name, set);
      }
    }
  }
  return { kubernetes, images };
}

/** A version made available to a new Shoot: no classification, expiry or lifecycle. */
function plain(v: Version, farFuture: string, keepExpiry: boolean): Version {
  const out = { ...v };
  delete out.classification;
  delete out.lifecycle;
  if (keepExpiry) out.expirationDate = farFuture;
  else delete out.expirationDate;
  return out;
}

interface Stage {
  classification: string;
  startTime?: string;
}

/**
 * What gardener-apiserver keeps of a version on CREATE, or undefined when it drops the version:
 * an expiry already reached is left out, an `expired` stage already started too, and a version
 * whose first stage starts later (unavailable now) is dropped. The replace that follows adds them,
 * as an UPDATE in a landscape would have.
 */
function keptOnCreate(v: Version, now: number): Version | undefined {
  // Dropped whole, not made active: an expired version without its expiry would be supported
  // again, and could conflict with the supported version of its minor.
  if (v.expirationDate !== undefined && Date.parse(v.expirationDate) <= now) return undefined;
  if (Array.isArray(v.lifecycle)) {
    const stages = v.lifecycle as Stage[];
    if (stages[0]?.startTime !== undefined && Date.parse(stages[0].startTime) > now) return undefined;
    if (
      stages.some(
        (st) => st.classification === 'expired' && (st.startTime === undefined || Date.parse(st.startTime) <= now),
      )
    )
      return undefined;
  }
  return v;
}

/**
 * The profile (or NamespacedCloudProfile) to create first: every version a Shoot uses made plain,
 * and what Gardener would drop or refuse on CREATE left out (keptOnCreate).
 */
function permissive(o: Obj, shoots: readonly K8sObject[], farFuture: string, now: number): Obj {
  const used = usedVersions(shoots);
  const out = structuredClone(o);
  const keep = (list: Version[], used: Set<string> | undefined) =>
    list.filter((v) => used?.has(v.version) === true || keptOnCreate(v, now) !== undefined);
  const sp = out.spec as
    { kubernetes?: { versions?: Version[] }; machineImages?: { name: string; versions?: Version[] }[] } | undefined;
  if (o.kind === 'CloudProfile') {
    if (sp?.kubernetes?.versions) sp.kubernetes.versions = keep(sp.kubernetes.versions, used.kubernetes);
    for (const img of sp?.machineImages ?? [])
      if (img.versions) img.versions = keep(img.versions, used.images.get(img.name));
  } else {
    // An override's expiry already reached: Gardener drops it on CREATE; a far one first.
    const far = (list: Version[]) =>
      list.map((v) =>
        v.expirationDate !== undefined && Date.parse(v.expirationDate) <= now ? { ...v, expirationDate: farFuture } : v,
      );
    if (sp?.kubernetes?.versions) sp.kubernetes.versions = far(sp.kubernetes.versions);
    for (const img of sp?.machineImages ?? []) if (img.versions) img.versions = far(img.versions);
  }
  const spec = out.spec as
    { kubernetes?: { versions?: Version[] }; machineImages?: { name: string; versions?: Version[] }[] } | undefined;
  const isNcp = o.kind === 'NamespacedCloudProfile';
  // A Kubernetes override in a NamespacedCloudProfile must carry an expirationDate: a far one.
  if (spec?.kubernetes?.versions)
    spec.kubernetes.versions = spec.kubernetes.versions.map((v) =>
      used.kubernetes.has(v.version) ? plain(v, farFuture, isNcp) : v,
    );
  for (const img of spec?.machineImages ?? []) {
    const set = used.images.get(img.name);
    if (set && img.versions)
      img.versions = img.versions.map((v) => (set.has(v.version) ? plain(v, farFuture, false) : v));
  }
  return out;
}

/**
 * The case's Shoot with what gardener-apiserver requires of a Shoot and the case leaves out: a
 * region and zones of its profile, networking, and credentials. None of it is read by the rules.
 */
function completeShoot(s: K8sObject, region: { name: string; zones?: { name: string }[] } | undefined): Obj {
  const out = writable(s);
  const spec = (out.spec ??= {}) as Record<string, unknown> & { provider?: { workers?: Record<string, unknown>[] } };
  spec.region ??= region?.name ?? 'region-1';
  spec.networking ??= { type: NETWORKING, nodes: '10.250.0.0/16' };
  spec.credentialsBindingName ??= 'e2e';
  const zones = (region?.zones ?? []).map((z) => z.name);
  for (const w of spec.provider?.workers ?? [])
    if (w.zones === undefined && zones.length > 0) w.zones = zones.slice(0, 1);
  return out;
}

export interface SetupResult {
  /** The profiles and NamespacedCloudProfiles as first created (cleanUp may need them back). */
  created: Obj[];
  /** What the webhook's caches must hold once the setup is done. */
  counts: { CloudProfile: number; NamespacedCloudProfile: number; Shoot: number };
  notes: string[];
}

/** Namespaces, Projects and extension registrations every case may need: created once per control plane. */
export async function prepareLandscape(admin: Kubectl, cases: readonly ReplayCase[]): Promise<void> {
  const namespaces = new Set<string>();
  const shootNamespaces = new Set<string>();
  const imageNames = new Set<string>();
  const providerTypes = new Set<string>();
  for (const c of cases) {
    for (const o of [c.object, c.oldObject, ...(c.shoots ?? []), ...(c.namespacedCloudProfiles ?? [])])
      if (o?.metadata.namespace) namespaces.add(o.metadata.namespace);
    for (const s of c.shoots ?? []) {
      if (s.metadata.namespace) shootNamespaces.add(s.metadata.namespace);
      const spec = (s as Obj).spec as
        { provider?: { type?: string; workers?: { machine?: { image?: { name?: string } } }[] } } | undefined;
      if (spec?.provider?.type) providerTypes.add(spec.provider.type);
      for (const w of spec?.provider?.workers ?? []) if (w.machine?.image?.name) imageNames.add(w.machine.image.name);
    }
  }
  const docs: unknown[] = [];
  for (const ns of namespaces) {
    docs.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    docs.push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'e2e', namespace: ns },
      type: 'Opaque',
      stringData: { note: 'no credentials: nothing ever reconciles these Shoots' },
    });
  }
  await applyAll(admin, docs);
  const gardenerDocs: unknown[] = [];
  // gardener-apiserver wants a Project for a Shoot's namespace (only those: a Project's namespace
  // must start with "garden-", and the NamespacedCloudProfiles of the cases live in others too).
  for (const ns of shootNamespaces) {
    gardenerDocs.push({
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Project',
      metadata: { name: projectName(ns) },
      spec: { namespace: ns },
    });
    gardenerDocs.push({
      apiVersion: 'security.gardener.cloud/v1alpha1',
      kind: 'CredentialsBinding',
      metadata: { name: 'e2e', namespace: ns },
      provider: { type: [...providerTypes][0] ?? 'local' },
      credentialsRef: { apiVersion: 'v1', kind: 'Secret', name: 'e2e', namespace: ns },
    });
  }
  const resources = [...providerTypes].flatMap((t) =>
    ['Infrastructure', 'ControlPlane', 'Worker'].map((kind) => ({ kind, type: t, primary: true })),
  );
  resources.push({ kind: 'Network', type: NETWORKING, primary: true });
  for (const name of imageNames) resources.push({ kind: 'OperatingSystemConfig', type: name, primary: true });
  gardenerDocs.push({
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'ControllerRegistration',
    metadata: { name: 'e2e-extensions' },
    spec: { resources },
  });
  await applyAll(admin, gardenerDocs);
}

function projectName(namespace: string): string {
  return (namespace.startsWith('garden-') ? namespace.slice('garden-'.length) : namespace).slice(0, 10);
}

async function applyAll(k: Kubectl, docs: readonly unknown[]): Promise<void> {
  const res = await k.run(['apply', '-f', '-'], docs.map((d) => stringify(d)).join('---\n'));
  if (res.code !== 0) throw new Error(`setup: kubectl apply: ${res.stderr}`);
}

async function create(k: Kubectl, o: Obj, notes: string[], what: string): Promise<boolean> {
  const res = await k.create([o]);
  if (res.code !== 0)
    notes.push(
      `${what} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name} not created: ${res.stderr.trim()}`,
    );
  return res.code === 0;
}

/** Replaces the stored object with `o` (keeping the stored resourceVersion and our finalizer). */
export async function replace(
  k: Kubectl,
  o: Obj,
  extra: readonly string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stored = await k.get<K8sObject>(ref(o)[0]!, o.metadata.name, o.metadata.namespace);
  const next = structuredClone(o);
  if (stored) {
    next.metadata.resourceVersion = stored.metadata.resourceVersion;
    const held = ((stored.metadata.finalizers as string[] | undefined) ?? []).filter((f) => f === HOLD_FINALIZER);
    if (held.length > 0)
      next.metadata.finalizers = [...new Set([...((next.metadata.finalizers as string[] | undefined) ?? []), ...held])];
  }
  return k.run(['replace', '-f', '-', ...extra], stringify(next));
}

async function markDeleted(k: Kubectl, o: K8sObject, notes: string[]): Promise<void> {
  if (o.kind === 'Shoot') await k.run(['annotate', '--overwrite', ...ref(o), `${CONFIRM}=true`]);
  const res = await k.run(['delete', ...ref(o), '--wait=false']);
  if (res.code !== 0) notes.push(`${o.kind} ${o.metadata.name}: deletionTimestamp not made real: ${res.stderr.trim()}`);
}

function withHold(o: Obj, held: boolean): Obj {
  if (!held) return o;
  const out = structuredClone(o);
  out.metadata.finalizers = [...((out.metadata.finalizers as string[] | undefined) ?? []), HOLD_FINALIZER];
  return out;
}

/** Creates the case's state: profiles, NamespacedCloudProfiles, Shoots and the old object. */
export async function setUp(exempt: Kubectl, c: ReplayCase, farFuture: string): Promise<SetupResult> {
  const notes: string[] = [];
  const profiles: K8sObject[] = [];
  const ncps: K8sObject[] = [...(c.namespacedCloudProfiles ?? [])];
  if (c.parentCloudProfile) profiles.push(c.parentCloudProfile);
  if (c.oldObject && c.kind === 'CloudProfile') profiles.push(c.oldObject);
  if (c.oldObject && c.kind === 'NamespacedCloudProfile') ncps.push(c.oldObject);
  const shoots = c.shoots ?? [];
  const deleting = (o: K8sObject) => o.metadata.deletionTimestamp !== undefined;
  const created: K8sObject[] = [];

  const now = Date.now();
  const replaced: K8sObject[] = [];
  const firsts: Obj[] = [];
  for (const o of [...profiles, ...ncps]) {
    const real = withHold(writable(o), deleting(o));
    const first = permissive(real, shoots, farFuture, now);
    if (await create(exempt, first, notes, o.kind)) {
      created.push(o);
      firsts.push(writable(permissive(writable(o), shoots, farFuture, now)));
      if (JSON.stringify(first) !== JSON.stringify(real)) replaced.push(o);
    }
  }
  await merged(
    exempt,
    ncps.filter((n) => created.includes(n)),
  );
  // Every case's profiles offer one region; the Shoots use the first one found.
  const region = profiles
    .map(
      (p) =>
        ((p as Obj).spec as { regions?: { name: string; zones?: { name: string }[] }[] } | undefined)?.regions?.[0],
    )
    .find((r) => r !== undefined);
  for (const s of shoots) {
    let shoot = withHold(completeShoot(s, region), deleting(s));
    const spec = shoot.spec as { cloudProfileName?: string; cloudProfile?: unknown };
    if (spec.cloudProfileName !== undefined && spec.cloudProfile !== undefined) {
      // gardener-apiserver refuses a new Shoot with both (older Shoots have them from before
      // cloudProfile existed); cloudProfile is the one that counts, so the Shoot keeps it alone.
      shoot = structuredClone(shoot);
      delete (shoot.spec as { cloudProfileName?: string }).cloudProfileName;
      notes.push(
        `Shoot ${s.metadata.name}: created without cloudProfileName ${JSON.stringify(spec.cloudProfileName)} (a new Shoot may not name both it and cloudProfile)`,
      );
    }
    if (await create(exempt, shoot, notes, 'Shoot')) created.push(s);
  }
  // Now the profiles as the case has them, the way a landscape gets there: by an update.
  for (const o of replaced) {
    const res = await replace(exempt, withHold(writable(o), deleting(o)));
    if (res.code !== 0) notes.push(`${o.kind} ${o.metadata.name}: the case's version not stored: ${res.stderr.trim()}`);
  }
  await merged(
    exempt,
    ncps.filter((n) => replaced.includes(n)),
  );
  for (const o of created.filter(deleting)) await markDeleted(exempt, o, notes);
  const count = (kind: string) => created.filter((o) => o.kind === kind).length;
  return {
    created: firsts,
    counts: {
      CloudProfile: count('CloudProfile'),
      NamespacedCloudProfile: count('NamespacedCloudProfile'),
      Shoot: count('Shoot'),
    },
    notes,
  };
}

/**
 * Waits until gardener-controller-manager's NamespacedCloudProfile controller (run by
 * gardener-envtest) has written each one's merged profile for its current generation.
 */
async function merged(k: Kubectl, ncps: readonly K8sObject[]): Promise<void> {
  for (const n of ncps) {
    await waitFor(
      `NamespacedCloudProfile ${n.metadata.name} reconciled`,
      async () => {
        const o = await k.get<{ metadata: { generation?: number }; status?: { observedGeneration?: number } }>(
          resourceOf(n.kind),
          n.metadata.name,
          n.metadata.namespace,
        );
        return o !== undefined && o.status?.observedGeneration === o.metadata.generation;
      },
      30_000,
      100,
    );
  }
}

/** Removes every Shoot, NamespacedCloudProfile and CloudProfile (our finalizer first). */
export async function cleanUp(exempt: Kubectl, profiles: readonly K8sObject[] = []): Promise<void> {
  const all =
    'shoots.core.gardener.cloud,namespacedcloudprofiles.core.gardener.cloud,cloudprofiles.core.gardener.cloud';
  for (const o of (JSON.parse(await exempt.ok(['get', all, '-A', '-o', 'json'])) as { items: K8sObject[] }).items) {
    const resource = resourceOf(o.kind);
    const ns = o.metadata.namespace ? ['-n', o.metadata.namespace] : [];
    const finalizers = (o.metadata.finalizers as string[] | undefined) ?? [];
    if (finalizers.includes(HOLD_FINALIZER)) {
      const rest = finalizers.filter((f) => f !== HOLD_FINALIZER);
      const patch = () =>
        exempt.run([
          'patch',
          resource,
          o.metadata.name,
          ...ns,
          '--type=merge',
          '-p',
          JSON.stringify({ metadata: { finalizers: rest.length ? rest : null } }),
        ]);
      let res = await patch();
      if (res.code !== 0 && /could not find referenced cloud profile/.test(res.stderr)) {
        // The case deleted the profile a deleting Shoot still names, and gardener-apiserver
        // validates every Shoot update against its profile: the profile comes back for this.
        for (const p of profiles) await exempt.create([p]);
        res = await patch();
      }
      if (res.code !== 0)
        throw new Error(`cleanup: our finalizer not removed from ${o.kind} ${o.metadata.name}: ${res.stderr}`);
    }
    if (o.kind === 'Shoot' && o.metadata.deletionTimestamp === undefined)
      await exempt.run(['annotate', '--overwrite', resource, o.metadata.name, ...ns, `${CONFIRM}=true`]);
  }
  // One kind after the other: the NamespacedCloudProfile controller keeps a profile while a Shoot
  // uses it, and gardener-apiserver refuses any change to one whose parent is gone.
  let left: K8sObject[] = [];
  let refusal = '';
  for (const kind of ['Shoot', 'NamespacedCloudProfile', 'CloudProfile']) {
    const resource = resourceOf(kind);
    await exempt.run(['delete', resource, '--all', '-A', '--wait=false']);
    const since = Date.now();
    try {
      await waitFor(
        `every ${kind} deleted`,
        async () => {
          left = (JSON.parse(await exempt.ok(['get', resource, '-A', '-o', 'json'])) as { items: K8sObject[] }).items;
          for (const o of left) {
            const ns = o.metadata.namespace ? ['-n', o.metadata.namespace] : [];
            if (o.metadata.deletionTimestamp === undefined) {
              const res = await exempt.run(['delete', resource, o.metadata.name, ...ns, '--wait=false']);
              if (res.code !== 0) refusal = res.stderr.trim();
            } else if (kind === 'NamespacedCloudProfile' && Date.now() - since > 2000) {
              // No Shoot is left: the NamespacedCloudProfile controller would drop its finalizer now,
              // but after its failed tries while Shoots still stood, its back-off can be minutes long.
              const res = await exempt.run([
                'patch',
                resource,
                o.metadata.name,
                ...ns,
                '--type=merge',
                '-p',
                '{"metadata":{"finalizers":null}}',
              ]);
              if (res.code !== 0) refusal = res.stderr.trim();
            }
          }
          return left.length === 0;
        },
        60_000,
        100,
      );
    } catch {
      const what = left.map(
        (o) =>
          `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name} (finalizers ${JSON.stringify(o.metadata.finalizers ?? [])}, deletionTimestamp ${String(o.metadata.deletionTimestamp)})`,
      );
      throw new Error(
        `cleanup: still there after 60 s: ${what.join(', ')}${refusal ? `; last refusal: ${refusal}` : ''}`,
      );
    }
  }
}
