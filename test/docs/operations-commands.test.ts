// Every command docs/operations/*.md tells an operator to run (its ```sh blocks) works:
// - kubectl: there is no cluster here, so each command is parsed and checked against what the
//   chart renders (every certificate mode, every option on): kinds, names, namespaces, label
//   selectors, containers, ports, jsonpaths, RBAC for `auth can-i`; a JSON patch is applied to the
//   rendered object. Objects the chart does not make are allowed only from a short list of cluster
//   built-ins (the `kubernetes` Service in `default`) and Gardener's own kinds.
// - curl and `openssl s_client`: run for real against the built CLI's `serve`, started here with
//   informers on the fake API server; the ports a doc reaches through port-forward (or docker -p)
//   are pointed at that server's ports.
// - helm: template, lint and show run with the real binary; install and upgrade, which need a
//   cluster, run as `helm template` with the same chart, values and flags; the rest (uninstall,
//   history, rollback) must name the documented release and namespace.
// - docker: each line must be one of the Dockerfile's examples, which test/image runs.
// - certs/generate.sh runs for real, in a scratch copy of the files the docs read.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import fastJsonPatch from 'fast-json-patch';
import t, { type Test } from 'tap';
import { parseAllDocuments } from 'yaml';
import { FakeApiServer } from '../helpers/fake-apiserver.js';
import { freePort } from '../helpers/free-port.js';
import { CHART, CI_VALUES, HELM, KUBE_VERSION, ROOT, type K8sObject } from '../helpers/helm.js';
import { CLEAN_ENV, CLI, tempDir, untracked } from '../helpers/run-cli.js';

const run = promisify(execFile);
const DOCS = join(ROOT, 'docs/operations');
const RELEASE = 'version-policy';
const NAMESPACE = 'version-policy';

// --- reading the docs ------------------------------------------------------------------------

interface DocCommand {
  where: string;
  text: string;
}

/**
 * The pages this test checks. certificates.md is checked by test/server/self-managed-docs.part.ts,
 * which runs its commands against the Secret and webhook configurations a real server wrote: what
 * they read exists only once the server ran, not in the rendered chart.
 */
const pages = () =>
  readdirSync(DOCS)
    .filter((f) => f.endsWith('.md') && f !== 'certificates.md')
    .sort();

/** One entry per command line of every ```sh block: continuations joined, trailing comments cut. */
function docCommands(): DocCommand[] {
  const out: DocCommand[] = [];
  for (const file of pages()) {
    const text = readFileSync(join(DOCS, file), 'utf8');
    for (const m of text.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)) {
      const indent = m[1]!.length;
      const lineNo = text.slice(0, m.index).split('\n').length + 1;
      const lines = m[2]!
        .split('\n')
        .map((l) => l.slice(indent))
        .join('\n')
        .replace(/\\\n\s*/g, ' ')
        .split('\n');
      lines.forEach((l, i) => {
        const command = stripComment(l).trim();
        if (command) out.push({ where: `${file}:${lineNo + i}`, text: command });
      });
    }
  }
  return out;
}

/** The line without a trailing `# comment` (a # outside quotes, after whitespace). */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

/** Splits at top-level `|`, `&&` and `;`; drops a trailing `&` (backgrounded). */
function segments(command: string): string[] {
  const out: string[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '|' || c === ';' || (c === '&' && command[i + 1] === '&')) {
      out.push(command.slice(start, i));
      if (c === '&') i++;
      start = i + 1;
    }
  }
  out.push(command.slice(start));
  return out.map((s) => s.trim().replace(/\s*&$/, '')).filter(Boolean);
}

/** Shell words, quotes removed; redirections (`> file`, `< file`, `2>/dev/null`) dropped. */
function words(segment: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const c of segment) {
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (/\s/.test(c)) {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) out.push(word);
  const kept: string[] = [];
  for (let i = 0; i < out.length; i++) {
    if (out[i] === '>' || out[i] === '<') i++;
    else if (!/^\d?[<>]/.test(out[i]!)) kept.push(out[i]!);
  }
  return kept;
}

// --- what the chart renders ------------------------------------------------------------------

type Obj = K8sObject & Record<string, unknown> & { spec?: Record<string, unknown> };

// Rendered once for both tests, which only read the objects: each helm template is a Go process.
let rendered: Promise<Obj[]> | undefined;
const renderUnion = () => (rendered ??= renderAll());

async function renderAll(): Promise<Obj[]> {
  const sets = [
    [],
    ...CI_VALUES.map((f) => ['-f', f]),
    [
      '--set',
      'networkPolicy.enabled=true,prometheusRule.enabled=true,autoscaling.enabled=true,serviceMonitor.enabled=true',
    ],
  ];
  const all: Obj[] = [];
  for (const extra of sets) {
    const { stdout } = await run(
      HELM,
      ['template', RELEASE, CHART, '-n', NAMESPACE, '--kube-version', KUBE_VERSION, ...extra],
      { maxBuffer: 16 << 20 },
    );
    for (const doc of parseAllDocuments(stdout)) {
      const o = doc.toJS() as Obj | null;
      if (o) all.push(o);
    }
  }
  return all;
}

const KINDS: Record<string, { kind: string; namespaced: boolean }> = {};
for (const [names, kind, namespaced] of [
  ['validatingwebhookconfiguration validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', false],
  ['mutatingwebhookconfiguration mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', false],
  ['clusterrole clusterroles', 'ClusterRole', false],
  ['clusterrolebinding clusterrolebindings', 'ClusterRoleBinding', false],
  ['namespace namespaces ns', 'Namespace', false],
  ['cloudprofile cloudprofiles', 'CloudProfile', false],
  ['deployment deployments deploy', 'Deployment', true],
  ['pod pods po', 'Pod', true],
  ['service services svc', 'Service', true],
  ['endpointslice endpointslices', 'EndpointSlice', true],
  ['job jobs', 'Job', true],
  ['secret secrets', 'Secret', true],
  ['configmap configmaps cm', 'ConfigMap', true],
  ['serviceaccount serviceaccounts sa', 'ServiceAccount', true],
  ['networkpolicy networkpolicies netpol', 'NetworkPolicy', true],
  ['certificate certificates', 'Certificate', true],
  ['poddisruptionbudget poddisruptionbudgets pdb', 'PodDisruptionBudget', true],
  ['horizontalpodautoscaler horizontalpodautoscalers hpa', 'HorizontalPodAutoscaler', true],
] as const) {
  for (const n of names.split(' ')) KINDS[n] = { kind, namespaced };
}

/** Objects of a cluster that exist without the chart and that the docs may name. */
const BUILT_IN: { kind: string; namespace?: string; name?: string; labels?: Record<string, string>; why: string }[] = [
  { kind: 'Service', namespace: 'default', name: 'kubernetes', why: 'the API server Service every cluster has' },
  {
    kind: 'EndpointSlice',
    namespace: 'default',
    labels: { 'kubernetes.io/service-name': 'kubernetes' },
    why: "the API server's endpoints",
  },
  { kind: 'CloudProfile', why: "Gardener's own resource; the docs' example profile" },
];

interface Ctx {
  objects: Obj[];
  checkout: string;
  /** Local port (port-forward, docker -p) → the test server's port. */
  ports: Map<string, number>;
  servers: { https: number; probes: number };
}

const podTemplates = (objects: Obj[]) =>
  objects
    .filter((o) => o.kind === 'Deployment' || o.kind === 'Job')
    .map(
      (o) =>
        (
          o.spec as {
            template: {
              metadata: { labels: Record<string, string> };
              spec: { containers: { name: string; ports?: { name: string; containerPort: number }[] }[] };
            };
          }
        ).template,
    );

const labelsMatch = (labels: Record<string, string> | undefined, selector: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

function parseSelector(text: string): Record<string, string> {
  return Object.fromEntries(text.split(',').map((p) => p.split('=') as [string, string]));
}

/** A jsonpath like {.a.b[0].c[*].d} or {.data.tls\.crt}; true when it reaches a value in `o`. */
function jsonpathResolves(o: unknown, path: string): boolean {
  const inner = path.replace(/^\{|\}$/g, '');
  const steps = inner
    .replace(/\\\./g, '\uE000')
    .split('.')
    .filter(Boolean)
    .map((s) => s.replace(/\uE000/g, '.'));
  let values: unknown[] = [o];
  for (const step of steps) {
    const [, key, index] = /^([^[]*)(?:\[(\*|\d+)\])?$/.exec(step) ?? [];
    values = values.flatMap((v) => {
      const got = key ? (v as Record<string, unknown> | undefined)?.[key] : v;
      if (index === undefined) return got === undefined ? [] : [got];
      if (!Array.isArray(got)) return [];
      const list = got as unknown[];
      return index === '*' ? list : list[Number(index)] === undefined ? [] : [list[Number(index)]];
    });
  }
  return values.length > 0;
}

function checkKubectl(t: Test, argv: string[], ctx: Ctx): void {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  const valued = new Set([
    '-n',
    '--namespace',
    '-l',
    '--selector',
    '-c',
    '--container',
    '-o',
    '--output',
    '-p',
    '--patch',
    '-f',
    '--filename',
    '--type',
    '--timeout',
    '--tail',
    '--as',
    '--cert',
    '--key',
    '--for',
  ]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('-')) {
      const [k, v] = a.includes('=')
        ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]
        : [a, valued.has(a) ? argv[++i]! : 'true'];
      flags.set(k, v);
    } else positional.push(a);
  }
  const ns = flags.get('-n') ?? flags.get('--namespace');
  const selector = flags.get('-l') ?? flags.get('--selector');
  const [verb, ...rest] = positional;
  t.not(verb, 'exec', 'no kubectl exec: the docs check from outside the pod');
  const find = (kind: string, name: string | undefined, namespaced: boolean) => {
    if (namespaced) t.ok(ns, `${kind}: the namespace is named (-n)`);
    const builtIn = BUILT_IN.find(
      (b) =>
        b.kind === kind &&
        (b.namespace === undefined || b.namespace === ns) &&
        (b.name === undefined || b.name === name) &&
        (!b.labels || (selector && labelsMatch(parseSelector(selector), b.labels))),
    );
    if (builtIn) return t.pass(`${kind} ${name ?? selector ?? ''}: ${builtIn.why}`);
    if (namespaced) t.equal(ns, NAMESPACE, `${kind} in the release namespace`);
    if (kind === 'Pod') {
      t.ok(selector, 'pods by label');
      return t.ok(
        podTemplates(ctx.objects).some((p) => labelsMatch(p.metadata.labels, parseSelector(selector!))),
        `pods labelled ${selector} exist`,
      );
    }
    if (kind === 'EndpointSlice') {
      const service = selector && parseSelector(selector)['kubernetes.io/service-name'];
      return t.ok(
        ctx.objects.some((o) => o.kind === 'Service' && o.metadata.name === service),
        `EndpointSlices of the chart's Service ${service}`,
      );
    }
    if (kind === 'Namespace') return t.equal(name, NAMESPACE, 'the release namespace');
    const matching = ctx.objects.filter(
      (o) =>
        o.kind === kind &&
        (!name || o.metadata.name === name) &&
        (!selector || labelsMatch(o.metadata.labels, parseSelector(selector))),
    );
    t.ok(matching.length > 0, `the chart renders ${kind} ${name ?? ''}${selector ? ` labelled ${selector}` : ''}`);
    return matching;
  };
  const targets = (): { kind: string; namespaced: boolean; name?: string }[] => {
    const [first = '', ...names] = rest;
    if (first.includes('/')) {
      const [type, name] = first.split('/');
      return [{ ...KINDS[type!]!, name: name! }];
    }
    const kinds = first.split(',').map((k) => KINDS[k]);
    t.ok(kinds.every(Boolean), `known kinds: ${first}`);
    return kinds.flatMap((k) => (names.length ? names.map((name) => ({ ...k!, name })) : [{ ...k! }]));
  };

  switch (verb) {
    case 'get':
    case 'describe':
    case 'delete': {
      for (const target of targets()) {
        const found = find(target.kind, target.name, target.namespaced);
        const output = flags.get('-o');
        if (Array.isArray(found) && output?.startsWith('jsonpath=')) {
          const path = output.slice('jsonpath='.length);
          t.ok(
            found.some((o) => jsonpathResolves(o, path)),
            `${path} reaches a value of ${target.kind} ${target.name ?? ''}`,
          );
        }
      }
      return;
    }
    case 'logs':
    case 'port-forward': {
      const [target] = targets();
      const found = find(target!.kind, target!.name, true);
      if (!Array.isArray(found)) return;
      const container = flags.get('-c');
      if (verb === 'logs' && container) {
        const containers = found.flatMap((o) =>
          (o.spec as { template: { spec: { containers: { name: string }[] } } }).template.spec.containers.map(
            (c) => c.name,
          ),
        );
        t.ok(containers.includes(container), `container ${container} exists`);
      }
      if (verb === 'port-forward') {
        const [local, remote] = rest[1]!.split(':');
        if (target!.kind === 'Service') {
          const port = (found[0]!.spec as { ports: { port: number; targetPort: string }[] }).ports.find(
            (p) => String(p.port) === remote,
          );
          t.ok(port, `the Service has port ${remote}`);
          ctx.ports.set(local!, port?.targetPort === 'https' ? ctx.servers.https : ctx.servers.probes);
        } else {
          const port = podTemplates(found)
            .flatMap((p) => p.spec.containers.flatMap((c) => c.ports ?? []))
            .find((p) => String(p.containerPort) === remote);
          t.ok(port, `a container port ${remote}`);
          ctx.ports.set(local!, port?.name === 'https' ? ctx.servers.https : ctx.servers.probes);
        }
      }
      return;
    }
    case 'rollout': {
      t.equal(rest[0], 'status');
      const [type, name] = rest[1]!.split('/');
      find(KINDS[type!]!.kind, name, true);
      return;
    }
    case 'patch': {
      for (const target of targets()) {
        const found = find(target.kind, target.name, target.namespaced);
        t.equal(flags.get('--type'), 'json');
        const ops = JSON.parse(flags.get('-p')!) as fastJsonPatch.Operation[];
        if (Array.isArray(found))
          for (const o of found)
            t.doesNotThrow(
              () => fastJsonPatch.applyPatch(structuredClone(o), ops, true),
              `the patch applies to ${target.kind} ${target.name}`,
            );
      }
      return;
    }
    case 'create': {
      if (rest[0] === 'namespace') return void t.equal(rest[1], NAMESPACE);
      t.same(rest.slice(0, 2), ['secret', 'tls']);
      t.ok(JSON.stringify(ctx.objects).includes(`"${rest[2]}"`), `the chart can mount Secret ${rest[2]}`);
      for (const f of ['--cert', '--key'])
        t.ok(existsSync(join(ctx.checkout, flags.get(f)!)), `${flags.get(f)} exists once the docs' previous steps ran`);
      t.equal(ns, NAMESPACE);
      return;
    }
    case 'apply': {
      t.ok(flags.get('-f'), 'applies a file the previous step wrote');
      t.equal(flags.get('--dry-run'), 'server', 'a dry run: nothing is stored');
      return;
    }
    case 'auth': {
      t.equal(rest[0], 'can-i');
      const [, verbToCheck, resource = ''] = rest;
      const [, saNs, saName] = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(flags.get('--as') ?? '') ?? [];
      t.ok(
        ctx.objects.some(
          (o) => o.kind === 'ServiceAccount' && o.metadata.name === saName && o.metadata.namespace === saNs,
        ),
        `the chart makes ${flags.get('--as')}`,
      );
      const [plural, ...group] = resource.split('.');
      const roles = ctx.objects
        .filter(
          (o) =>
            o.kind === 'ClusterRoleBinding' &&
            (o.subjects as { name: string; namespace: string }[]).some(
              (s) => s.name === saName && s.namespace === saNs,
            ),
        )
        .map((b) =>
          ctx.objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === (b.roleRef as { name: string }).name),
        );
      const grants = roles.some((r) =>
        (r?.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[] | undefined)?.some(
          (rule) =>
            rule.apiGroups.includes(group.join('.')) &&
            rule.resources.includes(plural!) &&
            rule.verbs.includes(verbToCheck!),
        ),
      );
      t.ok(grants, `the chart's RBAC lets ${flags.get('--as')} ${verbToCheck} ${resource}: the answer the docs expect`);
      return;
    }
    default:
      t.fail(`a kubectl verb this test does not check: ${verb}`);
  }
}

async function sh(command: string, ctx: Ctx): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', command],
      { cwd: ctx.checkout, env: { ...CLEAN_ENV, HELM }, timeout: 60_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

const withPorts = (command: string, ctx: Ctx) =>
  command.replace(/localhost:(\d+)/g, (m, port: string) =>
    ctx.ports.has(port) ? `localhost:${ctx.ports.get(port)}` : m,
  );

async function checkHelm(t: Test, segment: string, argv: string[], ctx: Ctx): Promise<void> {
  const [verb, release, chart] = argv;
  const ns = argv[argv.indexOf('-n') + 1];
  if (verb === 'install' || verb === 'upgrade') {
    t.equal(release, RELEASE);
    t.equal(ns, NAMESPACE);
    t.equal(chart, 'charts/version-policy');
    // Needs a cluster: the same chart, values and flags through `helm template`.
    const template = segment
      .replace(/^helm (install|upgrade)/, '"$HELM" template')
      .replace(/ --(create-namespace|reuse-values|wait|atomic)\b/g, '')
      .replace(/ --timeout[= ]\S+/g, '');
    const res = await sh(`${template} --kube-version ${KUBE_VERSION}`, ctx);
    t.equal(res.code, 0, `renders: ${res.stderr}`);
  } else if (verb === 'template' || verb === 'lint' || verb === 'show') {
    const res = await sh(segment.replace(/^helm /, '"$HELM" '), ctx);
    t.equal(res.code, 0, `runs: ${res.stderr}`);
  } else if (['uninstall', 'history', 'status', 'rollback'].includes(verb!)) {
    t.equal(release, RELEASE);
    t.equal(ns, NAMESPACE);
  } else {
    t.fail(`a helm command this test does not check: ${verb}`);
  }
}

t.test('every command in docs/operations works against the rendered chart or the running server', async (t) => {
  const commands = docCommands();
  t.ok(commands.length >= 40, `${commands.length} commands in ${pages().length} pages`);

  // A scratch copy of what the commands read and write, so the repository stays untouched.
  const checkout = await tempDir(t, 'vp-docs-');
  for (const dir of ['charts', 'test/fixtures', 'docs/operations/examples'])
    await cp(join(ROOT, dir), join(checkout, dir), { recursive: true });
  await mkdir(join(checkout, 'certs'));
  await cp(join(ROOT, 'certs/generate.sh'), join(checkout, 'certs/generate.sh'));

  // The server the curl commands talk to: the built CLI, informers on the fake API server.
  const api = await FakeApiServer.start();
  t.teardown(() => api.close());
  const probes = await freePort();
  await writeFile(
    join(checkout, 'serve.json'),
    JSON.stringify({
      server: { port: 0, probePort: probes, shutdownGraceSeconds: 1 },
      cluster: { kubeconfig: api.kubeconfigPath },
    }),
  );
  const child = spawn(...untracked(process.execPath, [CLI, 'serve', '--config', 'serve.json']), {
    cwd: checkout,
    env: { ...CLEAN_ENV, VERSION_POLICY_DEV_CERT_DIR: join(checkout, 'dev-certs') },
  });
  t.teardown(() => void child.kill('SIGKILL'));
  const https = await new Promise<number>((resolve, reject) => {
    let synced = false;
    let port = 0;
    createInterface({ input: child.stdout }).on('line', (line) => {
      const rec = JSON.parse(line) as { msg: string; url?: string };
      if (rec.msg === 'webhook listening') port = Number(new URL(rec.url!).port);
      if (rec.msg === 'cluster state synced') synced = true;
      if (port && synced) resolve(port);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });

  const dockerExamples = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((l) => /^# {3}\S/.test(l))
    .map((l) => l.slice(4).trim());
  const baseTag = /^ARG NODE_IMAGE=([^@\s]+)@/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
  const ctx: Ctx = { objects: await renderUnion(), checkout, ports: new Map(), servers: { https, probes } };

  for (const { where, text } of commands) {
    await t.test(`${where}: ${text.length > 100 ? `${text.slice(0, 97)}...` : text}`, async (t) => {
      if (/(^|&& )docker (run|build|stop)\b/.test(text)) {
        t.ok(
          dockerExamples.includes(text),
          'one of the Dockerfile examples, which test/image/production-install.e2e.ts runs',
        );
        for (const p of text.matchAll(/-p (\d+):(\d+)/g)) ctx.ports.set(p[1]!, https);
        return;
      }
      const [first = '', ...filters] = segments(text);
      const argv = words(first);
      switch (argv[0]) {
        case 'kubectl':
          checkKubectl(t, argv.slice(1), ctx);
          for (const f of filters)
            t.ok(
              ['grep', 'base64', 'openssl', 'head', 'tail', 'jq'].includes(words(f)[0]!),
              `a local filter: ${words(f)[0]}`,
            );
          return;
        case 'helm':
          return checkHelm(t, first, argv.slice(1), ctx);
        case 'curl':
        case 'openssl': {
          const command = withPorts(text, ctx);
          t.not(command, text.includes('localhost:') ? text : '', 'the port reaches the test server');
          const res = await sh(command, ctx);
          t.equal(res.code, 0, `exit 0${res.code ? `: ${res.stderr}` : ''}`);
          t.ok(res.stdout.trim(), `prints something: ${res.stdout.trim().split('\n')[0]}`);
          return;
        }
        case 'certs/generate.sh': {
          const res = await sh(text, ctx);
          t.equal(res.code, 0, res.stderr);
          return;
        }
        case 'docker':
          t.same(argv.slice(1, 4), ['buildx', 'imagetools', 'inspect']);
          t.equal(argv[4], baseTag, "the Dockerfile's base image");
          return;
        default:
          t.fail(`a command this test does not check: ${argv[0]}`);
      }
    });
  }
  child.kill('SIGTERM');
});

t.test("the README and its docs name the webhook kubectl shows first and the chart's ClusterRole", async (t) => {
  const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');
  const [readme, running, clusterState] = ['README.md', 'docs/running.md', 'docs/cluster-state.md'].map(read) as [
    string,
    string,
    string,
  ];
  const objects = await renderUnion();
  const role = /kind: ClusterRole\nmetadata:\n {2}name: (\S+)/.exec(clusterState)?.[1];
  t.ok(
    objects.some(
      (o) => o.kind === 'ClusterRole' && !o.metadata.annotations?.['helm.sh/hook'] && o.metadata.name === role,
    ),
    `the chart renders ClusterRole ${role ?? '(none named in docs/cluster-state.md)'}`,
  );
  // The CI identity of docs/cluster-state.md is the chart's ciReader (production-values.yaml turns it on).
  const ciAccount = /create token (\S+)/.exec(clusterState)?.[1];
  t.match(clusterState, /--set ciReader\.enabled=true/);
  t.ok(
    objects.some((o) => o.kind === 'ServiceAccount' && o.metadata.name === ciAccount),
    `the chart renders the CI ServiceAccount ${ciAccount ?? '(none named)'}`,
  );
  const mutating = objects.find((o) => o.kind === 'MutatingWebhookConfiguration') as Obj & {
    webhooks: { name: string; rules: { resources: string[] }[] }[];
  };
  const shownInRunning = /admission webhook "([^"]+)"\n# denied the request/.exec(running)?.[1];
  const shownInReadme = /CloudProfile it is:\n\n```text\n.*admission webhook "([^"]+)" denied the request/.exec(
    readme,
  )?.[1];
  t.equal(
    shownInRunning,
    mutating.webhooks[0]!.name,
    'docs/running.md: the mutating webhook runs first and also denies a CloudProfile change',
  );
  t.equal(
    shownInReadme,
    mutating.webhooks[0]!.name,
    'README.md: the mutating webhook runs first and also denies a CloudProfile change',
  );
  t.ok(mutating.webhooks[0]!.rules.some((r) => r.resources.includes('cloudprofiles')));
});
