// npm run replay -- <cases.json> [--without-webhook] [--output text|json] [--only ID]…
// npm run test:gardener (test/e2e/gardener.sh) runs it with --both --record … --parity ….
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startGardener, type GardenerPlane } from '../lib/gardener.js';
import { gateOf, loadCaseFile, type CaseResult, type ReplayCase } from './cases.js';
import { offlineCheck, parityRecord, parityTable, type ParityRecord } from './parity.js';
import { callers, prepare, register, replayAll, unregister, type Callers, type Plane } from './replay.js';

const HELP = `Usage: npm run replay -- <cases.json> [--without-webhook] [--output text|json] [--only ID]...

Replays every case of a file in the format of shared/cases/public-cases.json through the real
gardener-apiserver (Gardener's envtest: etcd, kube-apiserver, gardener-apiserver on loopback; one
control plane per setting of the feature gate VersionClassificationLifecycle the cases use).

For each case it creates the case's state as gardener-controller-manager (a user the chart's
matchConditions exempt, so the webhook never judges the setup): the parent CloudProfile, the
NamespacedCloudProfiles, the Shoots (with the Project, CredentialsBinding and extension
registrations gardener-apiserver requires of a Shoot, and the region, networking and credentials
the case leaves out), and the old object of an UPDATE or DELETE. What an object carries beyond its
spec is set up as the case has it: finalizers (Gardener's own too) and owner references as they
are, a deletionTimestamp made real (a finalizer of the replay's, then a delete), a Shoot's status
through its status subresource; managedFields (the API server's) and a NamespacedCloudProfile's
status (its controller's) are noted instead. Then it applies the case's write
with kubectl as an admin: create, replace (the stored resourceVersion added) or delete. It records
allowed or denied, kubectl's message, the stored object, and who denied: our webhook (kubectl says
'admission webhook "…version-policy.gardener.cloud" denied the request') or Gardener itself.

Time: each case's instants (every RFC 3339 string in its objects) are moved by one whole number of
seconds so that the case's "now" falls on the real clock when the case starts: with now
2026-09-01T00:00:00Z and the clock at 2026-11-27T12:00:00Z, 2026-08-31T00:00:00Z becomes
2026-11-26T12:00:00Z. gardener-apiserver and the webhook both judge at the real clock, a few
seconds later, so every instant keeps its side of now except one equal to it, which has to take a
side: with the webhook it is just past (our rules: "at or before now" is reached); without it, now
is put one minute ahead of the clock, so it is just ahead (Gardener: past only when strictly
before now). No case instant lies within a minute of its now except on it.

  --without-webhook   no webhook configuration is registered: what Gardener alone answers; a case
                      matches when that equals its gardenerAllowed
  --output json       one object: {"cases":[{"id","expected","got","deniedBy","matched"}],"summary":{…}}
  --only ID           replay only these cases (repeatable)
  --both              with the webhook and without it, on the same control planes
  --record FILE       (with --both) write the parity record: both replays and the offline check
  --parity FILE       (with --both) write the parity table (docs/gardener-parity.md) from the record
  --from-record FILE  start nothing: recompute the offline check of the record's cases (after a
                      policy change), write the record back and, with --parity, the table

A case matches when the outcome agrees with its expectation and every expected rule ID is in the
denial. One case never stops the run: what could not be set up or cleaned up after it is printed
under its line ("setup: ..."), and a case whose write could not run is a mismatch. The clean-up
after each case removes every finalizer (Gardener's on a Shoot once the Shoot's status says, as
gardenlet's would, that its deletion succeeded). Exit code: 0 all matched, 1 a mismatch, 2 a
usage error or a control plane that did not start.
Needs E2E_BIN (test/e2e/build-binaries.sh), E2E_GARDENER (test/e2e/build-gardener.sh) and a built
dist/ (npm run build); test/e2e/replay.sh, which npm run replay runs, provides all three.`;

interface Summary {
  cases: number;
  matched: number;
  mismatched: number;
  withWebhook: boolean;
  seconds: number;
}

function summarize(results: readonly CaseResult[], withWebhook: boolean, seconds: number): Summary {
  const matched = results.filter((r) => r.matched).length;
  return {
    cases: results.length,
    matched,
    mismatched: results.length - matched,
    withWebhook,
    seconds: Math.round(seconds),
  };
}

function line(r: CaseResult): string {
  const show = (x: { allowed: boolean; rules: string[] }) =>
    `${x.allowed ? 'allowed' : 'denied'}${x.rules.length ? ` [${x.rules.join(', ')}]` : ''}`;
  const by = r.deniedBy ? ` by ${r.deniedBy}` : '';
  const notes = r.setupNotes.length ? `\n    setup: ${r.setupNotes.join('\n    setup: ')}` : '';
  const message = !r.matched && r.got.message ? `\n    ${r.got.message.split('\n').join('\n    ')}` : '';
  return `${r.matched ? 'ok      ' : 'MISMATCH'} ${r.id} (gate ${r.gate ? 'on' : 'off'}): want ${show(r.expected)}, got ${show(r.got)}${by}${message}${notes}`;
}

async function main(): Promise<number> {
  let args;
  try {
    args = parseArgs({
      allowPositionals: true,
      options: {
        'without-webhook': { type: 'boolean', default: false },
        output: { type: 'string', default: 'text' },
        only: { type: 'string', multiple: true },
        both: { type: 'boolean', default: false },
        record: { type: 'string' },
        parity: { type: 'string' },
        'from-record': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    console.error(`replay: ${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { values, positionals } = args;
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 1 || !['text', 'json'].includes(values.output)) {
    console.error(`replay: one case file, and --output text or json\n\n${HELP}`);
    return 2;
  }
  let cases: ReplayCase[];
  try {
    cases = await loadCaseFile(positionals[0]!);
  } catch (err) {
    console.error(`replay: ${(err as Error).message}`);
    return 2;
  }
  if (values.only) {
    const only = new Set(values.only);
    cases = cases.filter((c) => only.has(c.id));
  }
  if (values['from-record']) {
    const file = values['from-record'];
    const record = JSON.parse(await readFile(file, 'utf8')) as ParityRecord;
    const check = offlineCheck(cases);
    for (const row of record.rows) row.check = check.get(row.id) ?? row.check;
    await writeFile(file, `${JSON.stringify(record, null, 1)}\n`);
    if (values.parity) await writeFile(values.parity, parityTable(record));
    return 0;
  }
  const json = values.output === 'json';
  const log = (s: string) => (json ? process.stderr : process.stdout).write(`${s}\n`);
  const modes = values.both ? [true, false] : [!values['without-webhook']];
  const results = new Map<boolean, CaseResult[]>(modes.map((m) => [m, []]));
  const seconds = new Map<boolean, number>(modes.map((m) => [m, 0]));
  const callersByGate: Record<string, Callers> = {};
  const dir = await mkdtemp(join(tmpdir(), 'version-policy-gardener-'));
  const started = Date.now();
  let versions: Record<string, string> = {};
  try {
    for (const gate of [false, true]) {
      const ofGate = cases.filter((c) => gateOf(c) === gate);
      if (ofGate.length === 0) continue;
      const t0 = Date.now();
      const g: GardenerPlane = await startGardener(join(dir), gate);
      versions = g.versions;
      log(`gardener-apiserver (gate ${gate ? 'on' : 'off'}) ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      let plane: Plane | undefined;
      try {
        plane = await prepare(g, ofGate);
        for (const n of plane.landscapeNotes) log(`setup (gate ${gate ? 'on' : 'off'}): ${n}`);
        for (const withWebhook of modes) {
          const t1 = Date.now();
          if (withWebhook) await register(plane);
          else if (values.both) await unregister(plane);
          log(
            `-- ${ofGate.length} cases, gate ${gate ? 'on' : 'off'}, ${withWebhook ? 'with' : 'without'} the webhook`,
          );
          results.get(withWebhook)!.push(...(await replayAll(plane, ofGate, withWebhook, (r) => log(line(r)))));
          if (withWebhook) callersByGate[gate ? 'on' : 'off'] = await callers(plane);
          seconds.set(withWebhook, seconds.get(withWebhook)! + (Date.now() - t1) / 1000);
        }
      } finally {
        await plane?.webhook.stop();
        await g.stop();
      }
    }
  } finally {
    if (process.env.E2E_KEEP !== '1') await rm(dir, { recursive: true, force: true });
    else log(`kept ${dir}`);
  }
  for (const [gate, c] of Object.entries(callersByGate))
    log(
      `reviews sent (gate ${gate}): gardener-apiserver ${JSON.stringify(c.gardenerApiserver)}, kube-apiserver ${JSON.stringify(c.kubeApiserver)}; ${c.servedBy}`,
    );

  const order = new Map(cases.map((c, i) => [c.id, i]));
  const sorted = (m: boolean) => [...results.get(m)!].sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  const summaries = modes.map((m) => summarize(sorted(m), m, seconds.get(m)!));
  if (json) {
    const one = (m: boolean) => ({
      cases: sorted(m).map((r) => ({
        id: r.id,
        expected: r.expected,
        got: r.got,
        deniedBy: r.deniedBy,
        matched: r.matched,
        gate: r.gate,
        setupNotes: r.setupNotes,
      })),
      summary: summarize(sorted(m), m, seconds.get(m)!),
    });
    console.log(
      JSON.stringify(
        values.both ? { withWebhook: one(true), withoutWebhook: one(false), callers: callersByGate } : one(modes[0]!),
      ),
    );
  }
  for (const s of summaries)
    log(
      `${s.withWebhook ? 'with' : 'without'} the webhook: cases ${s.cases}, matched ${s.matched}, mismatched ${s.mismatched} (${s.seconds} s)`,
    );
  if (values.both) {
    const record: ParityRecord = parityRecord(
      cases,
      sorted(true),
      sorted(false),
      offlineCheck(cases),
      versions,
      callersByGate,
    );
    if (values.record) await writeFile(values.record, `${JSON.stringify(record, null, 1)}\n`);
    if (values.parity) await writeFile(values.parity, parityTable(record));
    const failed = summaries.reduce((n, s) => n + s.mismatched, 0);
    const total = summaries.reduce((n, s) => n + s.cases, 0);
    log(`replay took ${Math.round((Date.now() - started) / 1000)} s`);
    log(`gardener: ${total - failed} passed, ${failed} failed`); // on stderr with --output json: stdout is the JSON
  }
  return summaries.some((s) => s.mismatched > 0) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`replay: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(2);
  },
);
