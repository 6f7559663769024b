// What a case needs before its write, created in the real gardener-apiserver as a user the chart's
// matchConditions exempt (so our webhook never judges the setup; Gardener's own admission and
// validation still do), and removed again after it.
//
// Gardener refuses some states outright: a Shoot on a version its profile does not offer, or one
// that has expired. Such a Shoot exists in a landscape because the profile changed after it was
// created, so the setup does the same: it first creates each profile with the versions the Shoots
// use made plain (no classification, expiry or lifecycle), creates the Shoots, and then replaces
// the profiles with the case's own. What an object of a case carries beyond its spec is set up as
// the case has it: finalizers (Gardener's own among them) and owner references as they are, a
// `deletionTimestamp` made real (the object gets a finalizer of ours and is deleted), a Shoot's
// status written through its status subresource. What cannot be (managedFields, the API server's
// bookkeeping; a NamespacedCloudProfile's status, its controller's) and whatever Gardener still
// refuses is recorded in setupNotes; the clean-up removes every finalizer, and never stops the run.
import { stringify } from 'yaml';
import { waitFor } from '../lib/control-plane.js';
import type { Kubectl } from '../lib/kubectl.js';
import type { K8sObject } from '../lib/webhook.js';
import type { ReplayCase } from './cases.js';

/** Holds objects the case has with a deletionTimestamp; removed by cleanUp(). */
export const HOLD_FINALIZER = 'e2e.version-policy.gardener.cloud/hold';
/** Gardener's own finalizer (gardener-controller-manager's and gardenlet's). */
const GARDENER_FINALIZER = 'gardener';
/** A Shoot's status once gardenlet has deleted it. */
const deleted = () => ({
  status: {
    lastOperation: {
      type: 'Delete',
      state: 'Succeeded',
      progress: 100,
      description: 'Deleted by the replay clean-up.',
      lastUpdateTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    },
  },
});
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

/** The region the case's Shoots are given: every case's profiles offer one; the first one found. */
function regionOf(c: ReplayCase): { name: string; zones?: { name: string }[] } | undefined {
  return [c.parentCloudProfile, c.kind === 'CloudProfile' ? c.oldObject : undefined]
    .filter((p): p is K8sObject => p?.kind === 'CloudProfile')
    .map(
      (p) =>
        ((p as Obj).spec as { regions?: { name: string; zones?: { name: string }[] }[] } | undefined)?.regions?.[0],
    )
    .find((r) => r !== undefined);
}

/** The case's object as the write sends it: a Shoot with what the setup filled in for it, too. */
export function written(c: ReplayCase, o: K8sObject): Obj {
  return o.kind === 'Shoot' ? completeShoot(o, regionOf(c)) : writable(o);
}

export interface SetupResult {
  /** The profiles and NamespacedCloudProfiles as first created (cleanUp may need them back). */
  created: Obj[];
  /** What the webhook's caches must hold once the setup is done. */
  counts: { CloudProfile: number; NamespacedCloudProfile: number; Shoot: number };
  notes: string[];
}

/**
 * Namespaces, Projects and extension registrations every case may need: created once per control
 * plane. Returns what could not be created (the cases that need it will say what failed).
 */
export async function prepareLandscape(admin: Kubectl, cases: readonly ReplayCase[]): Promise<string[]> {
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
  const refused = await applyAll(admin, docs);
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
  return [...refused, ...(await applyAll(admin, gardenerDocs))];
}

function projectName(namespace: string): string {
  return (namespace.startsWith('garden-') ? namespace.slice('garden-'.length) : namespace).slice(0, 10);
}

/**
 * Applies the documents; when kubectl refuses the lot, one by one, so that one refused document
 * (a namespace a Project cannot have) costs only the cases that need it. Returns the refusals.
 */
async function applyAll(k: Kubectl, docs: readonly unknown[]): Promise<string[]> {
  if (docs.length === 0) return []; // kubectl apply refuses an empty input
  const res = await k.apply(docs);
  if (res.code === 0) return [];
  const refused: string[] = [];
  for (const d of docs) {
    const one = await k.apply([d]);
    if (one.code !== 0) refused.push(one.stderr.trim());
  }
  return refused;
}

const nameOf = (o: K8sObject) => `${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

async function create(k: Kubectl, o: Obj, notes: string[], what: string): Promise<boolean> {
  let res = await k.create([o]);
  if (res.code !== 0 && o.metadata.ownerReferences !== undefined) {
    // An owner the case names but the replay does not have may be refused (blockOwnerDeletion).
    const bare = structuredClone(o);
    delete bare.metadata.ownerReferences;
    const retry = await k.create([bare]);
    if (retry.code === 0)
      notes.push(`${what} ${nameOf(o)}: created without its ownerReferences, refused with them: ${res.stderr.trim()}`);
    res = retry.code === 0 ? retry : res;
  }
  const finalizers = (o.metadata.finalizers as string[] | undefined) ?? [];
  if (res.code !== 0 && /cannot be added on creation/.test(res.stderr)) {
    // gardener-apiserver refuses Gardener's own finalizer on a create: as in a landscape, it
    // comes after, in an update.
    const bare = structuredClone(o);
    bare.metadata.finalizers = finalizers.filter((f) => f === HOLD_FINALIZER);
    const retry = await k.create([bare]);
    if (retry.code === 0) {
      const patch = JSON.stringify({ metadata: { finalizers } });
      const added = await k.run(['patch', ...ref(o), '--type=merge', '-p', patch]);
      if (added.code !== 0) notes.push(`${what} ${nameOf(o)}: finalizers not set up: ${added.stderr.trim()}`);
      res = retry;
    }
  }
  if (res.code !== 0) {
    // Only a leftover can be there: the clean-up after the case before could not remove it, and said so.
    const why = /AlreadyExists|already exists/.test(res.stderr) ? ' (left by an earlier case)' : '';
    notes.push(`${what} ${nameOf(o)} not created${why}: ${res.stderr.trim()}`);
  }
  return res.code === 0;
}

/**
 * What of the case's object the setup writes after its spec, or notes: a Shoot's status (through
 * its status subresource), the notes for a NamespacedCloudProfile's status and for managedFields.
 */
async function extras(k: Kubectl, o: K8sObject, notes: string[]): Promise<void> {
  if (o.metadata.managedFields !== undefined)
    notes.push(`${o.kind} ${nameOf(o)}: managedFields not set up (the API server's own bookkeeping)`);
  const status = (o as { status?: unknown }).status;
  if (status === undefined || status === null || Object.keys(status).length === 0) return;
  if (o.kind === 'NamespacedCloudProfile') {
    notes.push(`${o.kind} ${nameOf(o)}: status not set up: the NamespacedCloudProfile controller writes it`);
    return;
  }
  const res = await k.run([
    'patch',
    ...ref(o),
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status }),
  ]);
  if (res.code !== 0) notes.push(`${o.kind} ${nameOf(o)}: status not set up: ${res.stderr.trim()}`);
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

/**
 * Notes a finalizer of the case that the stored object no longer has: the NamespacedCloudProfile
 * controller removes its own from one being deleted that no Shoot uses, as it would in a landscape.
 */
async function finalizersKept(k: Kubectl, o: K8sObject, notes: string[]): Promise<void> {
  const want = (o.metadata.finalizers as string[] | undefined) ?? [];
  if (want.length === 0) return;
  const stored = await k.get<K8sObject>(ref(o)[0]!, o.metadata.name, o.metadata.namespace).catch(() => undefined);
  const have = new Set((stored?.metadata.finalizers as string[] | undefined) ?? []);
  const gone = want.filter((f) => !have.has(f));
  if (!stored || gone.length === 0) return;
  const why = o.kind === 'NamespacedCloudProfile' ? ' (its controller, which runs here, removed them)' : '';
  notes.push(`${o.kind} ${nameOf(o)}: finalizers ${JSON.stringify(gone)} gone before the write${why}`);
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
  const shoots = [...(c.shoots ?? [])];
  // The Shoot an UPDATE or DELETE of a Shoot writes to, unless the case lists it among its Shoots.
  const same = (a: K8sObject, b: K8sObject) =>
    a.metadata.name === b.metadata.name && a.metadata.namespace === b.metadata.namespace;
  if (c.oldObject && c.kind === 'Shoot' && !shoots.some((s) => same(s, c.oldObject!))) shoots.push(c.oldObject);
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
    notes,
  );
  const region = regionOf(c);
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
    notes,
  );
  for (const o of created) await extras(exempt, o, notes);
  for (const o of created.filter(deleting)) await markDeleted(exempt, o, notes);
  for (const o of created) await finalizersKept(exempt, o, notes);
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
async function merged(k: Kubectl, ncps: readonly K8sObject[], notes: string[]): Promise<void> {
  for (const n of ncps) {
    // Not thrown: the setup goes on, so that the clean-up knows everything it created.
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
    ).catch((err: unknown) => notes.push(`${n.kind} ${nameOf(n)}: ${(err as Error).message.trim()}`));
  }
}

/**
 * Removes every Shoot, NamespacedCloudProfile and CloudProfile, with whatever finalizers they carry
 * (ours, Gardener's own from a case, the NamespacedCloudProfile controller's): nothing else runs
 * here that would remove them. Never throws: what it cannot remove comes back as notes, and the
 * run goes on.
 */
export async function cleanUp(exempt: Kubectl, profiles: readonly K8sObject[] = []): Promise<string[]> {
  const notes: string[] = [];
  // The case deleted the profile a Shoot still names, and gardener-apiserver checks a Shoot's
  // profile on every update and delete: the profile comes back, bare, for this.
  const retried = async (run: () => Promise<{ code: number; stderr: string }>) => {
    const res = await run();
    if (res.code === 0 || !/could not find referenced cloud profile/.test(res.stderr)) return res;
    for (const p of profiles)
      await exempt.create([{ ...writable(p), metadata: { ...writable(p).metadata, finalizers: [] } }]);
    return run();
  };
  const unfinalize = async (o: K8sObject): Promise<void> => {
    const finalizers = (o.metadata.finalizers as string[] | undefined) ?? [];
    if (finalizers.length === 0) return;
    if (o.kind === 'Shoot' && finalizers.includes(GARDENER_FINALIZER)) {
      // gardener-apiserver's FinalizerRemoval plugin keeps Gardener's finalizer on a Shoot until its
      // last operation is a deletion that succeeded: what gardenlet writes when it is done.
      const done = await retried(() =>
        exempt.run(['patch', ...ref(o), '--subresource=status', '--type=merge', '-p', JSON.stringify(deleted())]),
      );
      if (done.code !== 0) notes.push(`status of Shoot ${nameOf(o)} not marked deleted: ${done.stderr.trim()}`);
    }
    const res = await retried(() =>
      exempt.run(['patch', ...ref(o), '--type=merge', '-p', '{"metadata":{"finalizers":null}}']),
    );
    if (res.code !== 0) notes.push(`finalizers of ${o.kind} ${nameOf(o)} not removed: ${res.stderr.trim()}`);
  };
  const list = async (resource: string): Promise<K8sObject[]> =>
    (JSON.parse(await exempt.ok(['get', resource, '-A', '-o', 'json'])) as { items: K8sObject[] }).items;
  try {
    for (const o of await list(
      'shoots.core.gardener.cloud,namespacedcloudprofiles.core.gardener.cloud,cloudprofiles.core.gardener.cloud',
    )) {
      await unfinalize(o);
      if (o.kind === 'Shoot' && o.metadata.deletionTimestamp === undefined)
        await exempt.run(['annotate', '--overwrite', ...ref(o), `${CONFIRM}=true`]);
    }
  } catch (err) {
    notes.push(`could not list what to remove: ${(err as Error).message.trim()}`);
  }
  // One kind after the other: the NamespacedCloudProfile controller keeps a profile while a Shoot
  // uses it, and gardener-apiserver refuses any change to one whose parent is gone.
  for (const kind of ['Shoot', 'NamespacedCloudProfile', 'CloudProfile']) {
    const resource = resourceOf(kind);
    let left: K8sObject[] = [];
    let refusal = '';
    await exempt.run(['delete', resource, '--all', '-A', '--wait=false']);
    try {
      await waitFor(
        `every ${kind} deleted`,
        async () => {
          left = await list(resource);
          for (const o of left) {
            if (o.metadata.deletionTimestamp === undefined) {
              const res = await retried(() => exempt.run(['delete', ...ref(o), '--wait=false']));
              if (res.code !== 0) refusal = res.stderr.trim();
            } else await unfinalize(o); // a finalizer added since (the NamespacedCloudProfile controller's)
          }
          return left.length === 0;
        },
        120_000,
        100,
      );
    } catch {
      const what = left.map(
        (o) =>
          `${o.kind} ${nameOf(o)} (finalizers ${JSON.stringify(o.metadata.finalizers ?? [])}, deletionTimestamp ${String(o.metadata.deletionTimestamp)})`,
      );
      notes.push(`still there after 120 s: ${what.join(', ')}${refusal ? `; last refusal: ${refusal}` : ''}`);
    }
  }
  return [...new Set(notes)];
}
