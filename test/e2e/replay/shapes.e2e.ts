// `npm run replay` on a case file with the shapes a file written outside the project may have
// (test/e2e/replay/fixtures/shapes.json), through the real gardener-apiserver: objects with Gardener's
// own finalizer, a deletionTimestamp, owner references, status and managedFields are set up as the
// case has them or noted; a state Gardener refuses is a note and the run goes on; the clean-up
// removes every finalizer; `--only` on a case with nothing to set up runs. npm run test:gardener
// (test/e2e/gardener.sh) runs this file; it needs E2E_BIN, E2E_GARDENER and dist/, as gardener.sh gives.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SHAPES = 'test/e2e/replay/fixtures/shapes.json';

t.setTimeout(1_800_000); // two control planes, one replay each way, on a shared machine

function replay(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['test/e2e/replay.sh', SHAPES, ...args],
      { cwd: ROOT, env: { ...process.env, E2E_SKIP_BUILD: '1' }, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

interface Result {
  id: string;
  matched: boolean;
  got: { allowed: boolean; message: string; stored?: Stored };
  setupNotes: string[];
}
interface Stored {
  metadata: {
    finalizers?: string[];
    ownerReferences?: { name: string }[];
    labels?: Record<string, string>;
    deletionTimestamp?: string;
  };
  status?: { technicalID?: string; lastOperation?: { state?: string } };
}

t.test('every shape is set up as the case has it, or noted, and no case stops the run', async (t) => {
  const run = await replay(['--both', '--output', 'json']);
  if (run.code !== 0) t.comment(run.stderr.slice(-4000));
  t.equal(run.code, 0, 'every case matched (exit 0)');
  const out = JSON.parse(run.stdout) as Record<'withWebhook' | 'withoutWebhook', { cases: Result[] }>;
  for (const mode of ['withWebhook', 'withoutWebhook'] as const) {
    const byId = new Map(out[mode].cases.map((c) => [c.id, c]));
    t.same([...byId.keys()].sort(), [
      'shape-delete-shoot-gardener-finalizer',
      'shape-deleting-ncp',
      'shape-deleting-profile-gardener-finalizer',
      'shape-ncp-status',
      'shape-nothing-to-set-up',
      'shape-shoot-status-owner-finalizer',
      'shape-unbuildable-shoot',
    ]);
    for (const c of byId.values()) {
      t.ok(c.matched, `${mode} ${c.id}: matched (${c.got.message || 'allowed'})`);
      t.same(
        c.setupNotes.filter((n) => n.startsWith('cleanup:')),
        [],
        `${mode} ${c.id}: cleaned up, finalizers and all`,
      );
    }
    const notes = (id: string) => byId.get(id)!.setupNotes.join('\n');
    // The profile being deleted, Gardener's finalizer on it, and a Shoot being deleted (Gardener's
    // finalizer, a deletion in progress): set up and cleaned up, and only managedFields noted.
    t.same(
      byId.get('shape-deleting-profile-gardener-finalizer')!.setupNotes,
      ["CloudProfile aws-profile: managedFields not set up (the API server's own bookkeeping)"],
      `${mode}: the profile and Shoots being deleted set up as the case has them`,
    );

    const profile = byId.get('shape-deleting-profile-gardener-finalizer')!.got.stored!;
    t.ok(profile.metadata.deletionTimestamp, `${mode}: the profile was being deleted when written`);
    t.ok(profile.metadata.finalizers?.includes('gardener'), `${mode}: and kept Gardener's finalizer`);

    const shoot = byId.get('shape-shoot-status-owner-finalizer')!;
    const stored = shoot.got.stored!;
    t.same(
      stored.metadata.finalizers,
      ['gardener', 'audit.example.com/retain'],
      `${mode}: the Shoot kept Gardener's finalizer and a foreign one`,
    );
    t.match(stored.metadata.ownerReferences, [{ name: 'owner' }], `${mode}: and its owner reference`);
    t.match(
      stored.status,
      { technicalID: 'shoot--dev--shoot-one', lastOperation: { state: 'Succeeded' } },
      `${mode}: and its status`,
    );
    t.match(stored.metadata.labels, { team: 'payments' }, `${mode}: the write went through`);
    t.match(notes('shape-shoot-status-owner-finalizer'), /Shoot garden-dev\/shoot-one: managedFields not set up/);

    // A DELETE of a Shoot with Gardener's finalizer: it stays, being deleted, until the clean-up.
    const leaving = byId.get('shape-delete-shoot-gardener-finalizer')!.got.stored!;
    t.ok(leaving.metadata.deletionTimestamp, `${mode}: the deleted Shoot stays, being deleted`);
    t.same(leaving.metadata.finalizers, ['gardener'], `${mode}: held by Gardener's finalizer`);

    // A Shoot still on it, so the NamespacedCloudProfile controller keeps its finalizer.
    const ncp = byId.get('shape-deleting-ncp')!;
    t.ok(ncp.got.stored!.metadata.deletionTimestamp, `${mode}: the NamespacedCloudProfile was being deleted`);
    t.ok(
      ['gardener', 'audit.example.com/retain'].every((f) => ncp.got.stored!.metadata.finalizers?.includes(f)),
      `${mode}: with Gardener's and a foreign finalizer`,
    );
    t.same(ncp.setupNotes, [], `${mode}: nothing noted`);

    t.match(
      notes('shape-ncp-status'),
      /NamespacedCloudProfile garden-dev\/dev-profile: status not set up: the NamespacedCloudProfile controller writes it/,
    );
    t.same(byId.get('shape-nothing-to-set-up')!.setupNotes, [], `${mode}: nothing to set up, nothing noted`);
    t.match(notes('shape-unbuildable-shoot'), /Shoot garden-dev\/orphan not created: .*missing-profile/);
  }
});

t.test('--only a case with nothing to set up: one line, and done', async (t) => {
  const run = await replay(['--only', 'shape-nothing-to-set-up']);
  if (run.code !== 0) t.comment(run.stderr.slice(-2000));
  t.equal(run.code, 0, 'the case matched (exit 0)');
  const lines = run.stdout.split('\n').filter((l) => /^(ok|MISMATCH) /.test(l));
  t.same(lines.length, 1, run.stdout);
  t.match(lines[0], /^ok +shape-nothing-to-set-up \(gate off\): want allowed, got allowed$/);
});
