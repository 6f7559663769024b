// docs/operations/certificates.md tells operators to run commands; each one must work. The chart is
// rendered as the doc names it (release and namespace version-policy), the real server fills the
// Secret and the webhook configurations in the fake API server, and then every `kubectl` line of the
// doc runs for real: `kubectl get … -o jsonpath` becomes `kubectl patch --local` on the object the
// server wrote (the same jsonpath, no cluster needed; there is no kube-apiserver here), piped into
// the doc's own openssl/base64/grep; `kubectl patch` is applied and the server must take over; the
// log filter runs on the pod's log lines. The Argo CD and Flux paths must point at fields that exist.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from '../helpers/parts.js';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { resolveConfig } from '../../src/config.js';
import { DATA_KEYS, signedBy } from '../../src/server/tls/self-managed-state.js';
import type { StoredObject } from '../helpers/fake-apiserver.js';
import { FakeApiServer } from '../helpers/fake-apiserver.js';
import { CHART, KUBE_VERSION, ROOT, helm } from '../helpers/helm.js';
import { ready, startReplica } from '../helpers/self-managed.js';
import { until } from '../helpers/until.js';

const DOC = join(ROOT, 'docs/operations/certificates.md');
const NS = 'version-policy';
const KINDS: Record<string, string> = {
  secret: 'Secret',
  validatingwebhookconfiguration: 'ValidatingWebhookConfiguration',
  mutatingwebhookconfiguration: 'MutatingWebhookConfiguration',
};

const run = promisify(execFile);
const has = async (tool: string) =>
  await run('sh', ['-c', `command -v ${tool}`]).then(
    () => true,
    () => false,
  );

/** Runs `script` in bash with pipefail, `input` on stdin. */
function bash(script: string, input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', script]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

function shellBlocks(md: string, lang: string): string[] {
  return [...md.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

function pointer(obj: unknown, path: string): unknown {
  return path
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (o, key) =>
        o === undefined || o === null
          ? undefined
          : (o as Record<string, unknown>)[key.replaceAll('~1', '/').replaceAll('~0', '~')],
      obj,
    );
}

const missing = (
  await Promise.all(['kubectl', 'openssl', 'jq'].map(async (tool) => ((await has(tool)) ? [] : [tool])))
).flat();

t.test(
  'every command in docs/operations/certificates.md works on what the server wrote',
  { skip: missing.length > 0 && `not installed here: ${missing.join(', ')}` },
  async (t) => {
    const doc = await readFile(DOC, 'utf8');
    const rendered = await helm([
      'template',
      'version-policy',
      CHART,
      '--namespace',
      NS,
      '--kube-version',
      KUBE_VERSION,
    ]);
    t.equal(rendered.code, 0, rendered.stderr);
    const objects = parseAllDocuments(rendered.stdout)
      .map((d) => d.toJS() as StoredObject | null)
      .filter((o): o is StoredObject => o !== null);

    const fake = await FakeApiServer.start();
    t.teardown(() => fake.close());
    for (const o of objects) if (Object.values(KINDS).includes(o.kind)) fake.objects.put(o);
    const configMap = objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    const raw = parseYaml(configMap.data['config.yaml']!) as { server: Record<string, unknown> };
    const config = resolveConfig({
      ...raw,
      server: { ...raw.server, host: '127.0.0.1', port: 0, probePort: 0, certReloadIntervalSeconds: 0.1 },
      cluster: { enabled: false, kubeconfig: fake.kubeconfigPath },
    });
    const replica = await startReplica(config);
    t.teardown(() => replica.close());
    await until('ready', () => ready(replica.port), 60_000, 20);

    const dir = await mkdtemp(join(tmpdir(), 'vp-doc-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const live = async (kind: string, namespace: string | undefined, name: string) => {
      const o = fake.objects.get(KINDS[kind] ?? kind, namespace, name);
      if (!o) throw new Error(`no ${kind} ${namespace ?? ''}/${name} in the fake API server`);
      const file = join(dir, `${kind}.json`);
      await writeFile(file, JSON.stringify(o));
      return { o, file };
    };

    const commands = shellBlocks(doc, 'sh')
      .flatMap((b) => b.split('\n'))
      .filter((l) => l.startsWith('kubectl '));
    t.ok(commands.length >= 7, `${commands.length} kubectl commands`);
    const getLine = /^kubectl (?:-n (\S+) )?get (\S+) (\S+) -o jsonpath='([^']+)'(.*)$/;
    const logsLine = /^kubectl -n (\S+) logs deployment\/(\S+) \| (.*)$/;
    const patchLine = /^kubectl -n (\S+) patch secret (\S+) --type=json -p '([^']+)'$/;
    for (const line of commands) {
      let m: RegExpExecArray | null;
      if ((m = getLine.exec(line))) {
        const [, namespace, kind, name, jsonpath, rest] = m;
        const { file } = await live(kind!, namespace, name!);
        const res = await bash(`kubectl patch --local -f ${file} --type=json -p '[]' -o jsonpath='${jsonpath}'${rest}`);
        t.equal(res.code, 0, `${line}\n${res.stderr}`);
        t.ok(res.stdout.trim(), `prints something: ${line.slice(0, 90)}…`);
        if (/caBundle/.test(jsonpath!))
          t.match(res.stdout, /subject=.*version-policy-certs CA/, 'lists the published CA');
        if (/tls\\\.crt/.test(jsonpath!))
          t.match(res.stdout, /DNS:version-policy\.version-policy\.svc/, 'shows the name kube-apiserver dials');
        if (/rotation\\\.json/.test(jsonpath!))
          t.match(JSON.parse(res.stdout), { activeSince: String, settled: Object });
      } else if ((m = logsLine.exec(line))) {
        const logs = replica.logs.map((l) => JSON.stringify(l)).join('\n');
        const res = await bash(m[3]!, `${logs}\n`);
        t.equal(res.code, 0, line);
        t.match(res.stdout, /certificate Secret updated/, 'the filter finds the rotation steps');
        t.match(res.stdout, /caBundle published/);
      } else if ((m = patchLine.exec(line))) {
        const [, namespace, name, patch] = m;
        const { o, file } = await live('secret', namespace, name!);
        const before = Buffer.from((o.data as Record<string, string>)[DATA_KEYS.caCert]!, 'base64').toString();
        const res = await bash(`kubectl patch --local -f ${file} --type=json -p '${patch}' -o json`);
        t.equal(res.code, 0, `${line}\n${res.stderr}`);
        const patched = JSON.parse(res.stdout) as StoredObject;
        t.notOk(patched.data, 'the patch empties the Secret');
        fake.objects.put(patched);
        const after = await until(
          'a new CA',
          () => {
            const data = (fake.objects.get('Secret', namespace, name!)?.data ?? {}) as Record<string, string>;
            const ca = Buffer.from(data[DATA_KEYS.caCert] ?? '', 'base64').toString();
            return ca !== '' && ca !== before ? ca : undefined;
          },
          60_000,
          20,
        );
        const bundle = Buffer.from(
          (fake.objects.get('Secret', namespace, name!)?.data as Record<string, string>)[DATA_KEYS.bundle]!,
          'base64',
        ).toString();
        t.ok(
          bundle.includes(after.trim()) && bundle.includes(before.trim()),
          'rotate now: the new CA is published beside the old one',
        );
        t.ok(await ready(replica.port), 'and the replica stays ready');
        const serving = await until('a serving certificate from the new CA', () => {
          const data = (fake.objects.get('Secret', namespace, name!)?.data ?? {}) as Record<string, string>;
          const cert = Buffer.from(data[DATA_KEYS.cert] ?? '', 'base64').toString();
          return cert !== '' && signedBy(cert, after) ? cert : undefined;
        });
        t.notOk(signedBy(serving, before), 'the Secret’s serving certificate comes from the new CA');
      } else {
        t.fail(`a documented command this test does not check: ${line}`);
      }
    }

    // Argo CD and Flux: their paths select the fields the server writes.
    const [argo, flux] = shellBlocks(doc, 'yaml').map((b) => parseYaml(b) as Record<string, Record<string, unknown>>);
    const argoRules =
      (argo!.spec!.ignoreDifferences as {
        kind: string;
        name?: string;
        jqPathExpressions?: string[];
        jsonPointers?: string[];
      }[]) ?? [];
    t.same(argoRules.map((r) => r.kind).sort(), [
      'MutatingWebhookConfiguration',
      'Secret',
      'ValidatingWebhookConfiguration',
    ]);
    for (const rule of argoRules) {
      const o = fake.objects.get(rule.kind, rule.kind === 'Secret' ? NS : undefined, rule.name ?? 'version-policy')!;
      for (const expr of rule.jqPathExpressions ?? []) {
        const res = await bash(`jq -r '${expr}'`, JSON.stringify(o));
        t.match(res.stdout.trim(), /^[A-Za-z0-9+/=]{100,}$/, `Argo CD ${rule.kind} ${expr} selects the caBundle`);
      }
      for (const p of rule.jsonPointers ?? []) t.ok(pointer(o, p), `Argo CD ${rule.kind} ${p} exists`);
    }
    const fluxRules = (
      flux!.spec!.driftDetection as { ignore: { paths: string[]; target: { kind: string; name?: string } }[] }
    ).ignore;
    for (const rule of fluxRules) {
      const o = fake.objects.get(
        rule.target.kind,
        rule.target.kind === 'Secret' ? NS : undefined,
        rule.target.name ?? 'version-policy',
      )!;
      for (const p of rule.paths) t.ok(pointer(o, p), `Flux ${rule.target.kind} ${p} exists`);
    }

    // The readiness messages quoted in the troubleshooting table are the server's.
    const source = await readFile(join(ROOT, 'src/server/tls/self-managed-source.ts'), 'utf8');
    const troubleshooting = doc.slice(doc.indexOf('## Troubleshooting'));
    const quoted = [...troubleshooting.matchAll(/^\| `([^`]+)`/gm)].map((m) => m[1]!);
    t.ok(quoted.length >= 4);
    for (const q of quoted) {
      for (const fragment of q
        .replace(/^Secret \S+ /, '')
        .split('…')
        .map((f) => f.replace(/\(|\)/g, '').trim())
        .filter((f) => f.length > 15)) {
        t.ok(source.includes(fragment), `the server says "${fragment}"`);
      }
    }
  },
);
