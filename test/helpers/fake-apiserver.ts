// THE ONE FAKE IN THIS PROJECT: a local HTTPS server speaking the Kubernetes list/watch wire
// protocol for core.gardener.cloud/v1beta1 shoots, cloudprofiles and namespacedcloudprofiles.
// There is no kube-apiserver binary CI can install, so the informers and `check --cluster` are
// tested against this instead. Everything else in the tests is real code.
//
// What it does as the real API server does:
// - HTTPS on 127.0.0.1, port 0, with a certificate from our dev CA; bearer-token auth (401 otherwise);
//   a kubeconfig file (CA data, token) written to a temp dir.
// - One global resourceVersion counter across all resources (etcd's revision).
// - LIST with `limit` and `continue` (pages of one consistent snapshot), `resourceVersion`
//   ('' / '0' / N with NotOlderThan or Exact); items carry no apiVersion/kind, as in built-in lists.
// - WATCH (`?watch=1`) as a chunked stream of JSON lines: ADDED, MODIFIED, DELETED, and BOOKMARK
//   when `allowWatchBookmarks=true`; replays history after `resourceVersion`; `timeoutSeconds`.
// - A bounded event history: a resourceVersion or continue token older than it gets 410 Gone
//   (a LIST answers HTTP 410; a WATCH answers 200 then an ERROR event with code 410, or HTTP 410
//   with `goneAsHttpStatus`).
// - All-namespace paths and `/namespaces/{ns}/…` paths for the namespaced resources.
// Test controls: add/modify/remove objects, drop every watch connection, compact history, send
// bookmarks, inject faults (status codes, connections cut mid-body), go down (refuse connections)
// and come back up, stall (connections stay open but nothing arrives: a network partition, or a
// peer that died without closing) and resume.
// Bookmarks: kube-apiserver's watch cache sends one about every minute to a watch that allows
// them; here only on `bookmark()`, or every `bookmarkIntervalMs` when set.
// Apart from that, two small stores at the end of this file, each used by its own tests:
// `webhookConfigurations` (GET and DELETE of admissionregistration.k8s.io/v1 webhook
// configurations, for the uninstall hook) and `objects` (Secrets and webhook configurations for
// the self-managed certificate source: GET, POST (Secrets), PUT with resourceVersion
// preconditions (409), PATCH (JSON Patch, 422 when a `test` fails)), also holding the report
// writer's Leases and openreports.io Reports and ClusterReports (those with LIST by label across
// namespaces and DELETE too). A webhook-configuration
// request goes to the first store when it is a DELETE or names one of its objects, else to the second.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { createDevCertificates } from '../../src/server/tls/self-signed.js';

const GROUP_VERSION = 'core.gardener.cloud/v1beta1';
const PREFIX = `/apis/${GROUP_VERSION}`;

interface ResourceDef {
  kind: string;
  namespaced: boolean;
}

const RESOURCES: Record<string, ResourceDef> = {
  shoots: { kind: 'Shoot', namespaced: true },
  cloudprofiles: { kind: 'CloudProfile', namespaced: false },
  namespacedcloudprofiles: { kind: 'NamespacedCloudProfile', namespaced: true },
};
const PLURAL_OF: Record<string, string> = {
  Shoot: 'shoots',
  CloudProfile: 'cloudprofiles',
  NamespacedCloudProfile: 'namespacedcloudprofiles',
};

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> & { name: string; namespace?: string } };
type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface HistoryEvent {
  rv: number;
  type: EventType;
  plural: string;
  key: string;
  object: Obj;
  /** The object before this event (MODIFIED, DELETED), to rebuild older snapshots. */
  prev?: Obj;
}

interface Watcher {
  plural: string;
  namespace?: string;
  res: ServerResponse;
  bookmarks: boolean;
  timers: NodeJS.Timeout[];
}

export interface Fault {
  verb: 'list' | 'watch';
  /** Only requests for this resource (default: any). */
  plural?: string;
  /** Answer with this HTTP status and a Status body. */
  status?: number;
  retryAfterSeconds?: number;
  /** Cut the connection: a LIST after half its body, a WATCH before any event. */
  drop?: boolean;
  /** Serve this LIST page, then compact history so its continue token is expired. */
  expireContinue?: boolean;
}

export interface RequestRecord {
  /** When the request was handled (epoch ms). */
  at: number;
  method: string;
  path: string;
  query: Record<string, string>;
  watch: boolean;
}

export interface FakeApiServerOptions {
  /** Events kept for watches and continue tokens; older ones answer 410 (default 1000). */
  historyLimit?: number;
  /** Periodic BOOKMARK interval for watches that allow them; 0 = only on `bookmark()` (default 0). */
  bookmarkIntervalMs?: number;
  /** Answer an expired WATCH with HTTP 410 instead of 200 + ERROR event. */
  goneAsHttpStatus?: boolean;
  /** Start refusing connections (the port is reserved and `up()` opens it). */
  down?: boolean;
}

const clone = <T>(o: T): T => structuredClone(o);
const keyOf = (o: Obj) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

function status(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

export class FakeApiServer {
  readonly requests: RequestRecord[] = [];
  /** admissionregistration.k8s.io/v1 webhook configurations (GET and DELETE by name). */
  readonly webhookConfigurations = new WebhookConfigurations();
  readonly token = 'fake-apiserver-token';
  /** Secrets and webhook configurations; they share the resourceVersion counter. */
  readonly objects = new CoreObjects(() => String(++this.rv));
  port = 0;
  kubeconfigPath = '';

  private rv = 1000;
  private compactedRv = 1000;
  private readonly store = new Map<string, Map<string, Obj>>(Object.keys(RESOURCES).map((p) => [p, new Map()]));
  private history: HistoryEvent[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly sockets = new Set<Socket>();
  private readonly faults: Fault[] = [];
  private uid = 0;
  private listening = false;
  /** While stalled: the requests that arrived, answered on `resume()`. */
  private held: Array<() => void> | undefined;

  private constructor(
    private readonly server: Server,
    private readonly dir: string,
    private readonly opts: FakeApiServerOptions,
  ) {
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.handle(req, res));
  }

  static async start(opts: FakeApiServerOptions = {}): Promise<FakeApiServer> {
    const certs = await createDevCertificates({ hosts: ['127.0.0.1'], caName: 'fake kube-apiserver CA' });
    const server = createServer({ cert: certs.serving.certPem, key: certs.serving.keyPem });
    const dir = await mkdtemp(join(tmpdir(), 'fake-apiserver-'));
    const fake = new FakeApiServer(server, dir, opts);
    await fake.up();
    fake.kubeconfigPath = join(dir, 'kubeconfig');
    await writeFile(fake.kubeconfigPath, fake.kubeconfig(certs.ca.certPem));
    if (opts.down) await fake.down();
    return fake;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get resourceVersion(): string {
    return String(this.rv);
  }

  private kubeconfig(caPem: string): string {
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: fake',
      '  cluster:',
      `    server: ${this.url}`,
      `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
      'users:',
      '- name: fake',
      '  user:',
      `    token: ${this.token}`,
      'contexts:',
      '- name: fake',
      '  context: {cluster: fake, user: fake}',
      'current-context: fake',
      '',
    ].join('\n');
  }

  // --- test controls: objects ---------------------------------------------------------------

  /** Creates `obj` (ADDED); returns the stored copy with its resourceVersion. */
  add(obj: object): Obj {
    const o = clone(obj) as Obj;
    const plural = this.pluralOf(o);
    if (this.store.get(plural)?.has(keyOf(o))) throw new Error(`fake apiserver: ${keyOf(o)} already exists`);
    o.metadata.uid = `uid-${++this.uid}`;
    o.metadata.creationTimestamp = new Date().toISOString();
    return this.write('ADDED', plural, o);
  }

  /** Replaces an existing object (MODIFIED). */
  modify(obj: object): Obj {
    const o = clone(obj) as Obj;
    const plural = this.pluralOf(o);
    const prev = this.store.get(plural)?.get(keyOf(o));
    if (!prev) throw new Error(`fake apiserver: ${keyOf(o)} does not exist`);
    o.metadata.uid = prev.metadata.uid;
    o.metadata.creationTimestamp = prev.metadata.creationTimestamp;
    return this.write('MODIFIED', plural, o, prev);
  }

  /** Deletes an object (DELETED, carrying its last state). */
  remove(kind: string, namespace: string | undefined, name: string): void {
    const plural = PLURAL_OF[kind] ?? kind;
    const key = namespace ? `${namespace}/${name}` : name;
    const prev = this.store.get(plural)?.get(key);
    if (!prev) throw new Error(`fake apiserver: ${key} does not exist`);
    this.write('DELETED', plural, clone(prev), prev);
  }

  private pluralOf(o: Obj): string {
    const plural = PLURAL_OF[String(o.kind)];
    if (!plural) throw new Error(`fake apiserver: unknown kind ${String(o.kind)}`);
    return plural;
  }

  private write(type: EventType, plural: string, o: Obj, prev?: Obj): Obj {
    o.apiVersion = GROUP_VERSION;
    o.kind = RESOURCES[plural]?.kind;
    o.metadata.resourceVersion = String(++this.rv);
    const key = keyOf(o);
    const objects = this.store.get(plural) as Map<string, Obj>;
    if (type === 'DELETED') objects.delete(key);
    else objects.set(key, o);
    const ev: HistoryEvent = { rv: this.rv, type, plural, key, object: o, ...(prev ? { prev } : {}) };
    this.history.push(ev);
    const limit = this.opts.historyLimit ?? 1000;
    while (this.history.length > limit) this.compactedRv = (this.history.shift() as HistoryEvent).rv;
    for (const w of this.watchers) if (this.matches(w, ev)) this.send(w, ev.type, ev.object);
    return clone(o);
  }

  // --- test controls: the connection ----------------------------------------------------------

  /** Cuts every open watch connection mid-stream; returns how many there were. */
  dropWatches(): number {
    const n = this.watchers.size;
    for (const w of [...this.watchers]) {
      this.unwatch(w);
      w.res.socket?.destroy();
    }
    return n;
  }

  /**
   * Forgets all history, as etcd compaction does, while the rest of the cluster (leases, events)
   * moves the global revision on by one: every earlier resourceVersion and continue token is now
   * 410 Gone.
   */
  compact(): void {
    this.rv++;
    this.compactedRv = this.rv;
    this.history = [];
  }

  /** Sends a BOOKMARK at the current resourceVersion to every watch that allows them. */
  bookmark(): void {
    for (const w of this.watchers) if (w.bookmarks) this.sendBookmark(w);
  }

  injectFault(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  watchCount(plural?: string): number {
    return [...this.watchers].filter((w) => !plural || w.plural === plural).length;
  }

  /** Stops accepting connections and cuts every open one. */
  async down(): Promise<void> {
    if (!this.listening) return;
    this.listening = false;
    for (const w of [...this.watchers]) this.unwatch(w);
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  /** Listens again, on the same port. */
  async up(): Promise<void> {
    if (this.listening) return;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as { port: number }).port;
    this.listening = true;
  }

  /**
   * A partition: open watches stay connected but never carry another event, and new requests
   * get no answer, until `resume()`.
   */
  stall(): void {
    this.held ??= [];
    for (const w of [...this.watchers]) this.unwatch(w);
  }

  /** Ends a stall: the held requests are answered now; the watches it silenced stay silent. */
  resume(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const answer of held) answer();
  }

  async close(): Promise<void> {
    this.resume();
    await this.down();
    await rm(this.dir, { recursive: true, force: true });
  }

  // --- the API ----------------------------------------------------------------------------

  private handle(req: IncomingMessage, res: ServerResponse): void {
    if (this.held) return void this.held.push(() => req.socket.destroyed || this.handle(req, res));
    const url = new URL(req.url ?? '/', this.url);
    const query = Object.fromEntries(url.searchParams);
    const watch = query.watch === '1' || query.watch === 'true';
    this.requests.push({ at: Date.now(), method: req.method ?? '', path: url.pathname, query, watch });

    if (req.headers.authorization !== `Bearer ${this.token}`)
      return this.fail(res, 401, 'Unauthorized', 'Unauthorized');
    if (this.webhookConfigurations.claims(req.method ?? '', url.pathname))
      return this.webhookConfigurations.handle(req.method ?? '', url.pathname, res);
    if (this.objects.serves(url.pathname)) return void this.objects.handle(req, res, url.pathname);
    const route = this.route(url.pathname);
    if (!route)
      return this.fail(res, 404, 'NotFound', `the server could not find the requested resource (${url.pathname})`);
    if (req.method !== 'GET')
      return this.fail(res, 405, 'MethodNotAllowed', `${req.method ?? ''} is not supported by this fake`);

    const faultAt = this.faults.findIndex(
      (f) => f.verb === (watch ? 'watch' : 'list') && (!f.plural || f.plural === route.plural),
    );
    const fault = faultAt >= 0 ? this.faults.splice(faultAt, 1)[0] : undefined;
    if (fault?.status) {
      if (fault.retryAfterSeconds) res.setHeader('Retry-After', String(fault.retryAfterSeconds));
      return this.fail(res, fault.status, fault.status === 429 ? 'TooManyRequests' : 'InternalError', 'injected fault');
    }
    if (watch) {
      if (fault?.drop) return void req.socket.destroy();
      return this.watch(route, query, res);
    }
    this.list(route, query, res, fault);
  }

  private route(path: string): { plural: string; namespace?: string } | undefined {
    if (!path.startsWith(`${PREFIX}/`)) return undefined;
    const parts = path.slice(PREFIX.length + 1).split('/');
    if (parts.length === 1 && RESOURCES[parts[0] as string]) return { plural: parts[0] as string };
    if (parts.length === 3 && parts[0] === 'namespaces' && RESOURCES[parts[2] as string]?.namespaced) {
      return { plural: parts[2] as string, namespace: parts[1] as string };
    }
    return undefined;
  }

  private fail(res: ServerResponse, code: number, reason: string, message: string): void {
    res.writeHead(code, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(status(code, reason, message)));
  }

  /** The objects of `plural` as they were at `atRv` (history must reach back that far). */
  private snapshot(plural: string, atRv: number): Map<string, Obj> {
    const objects = new Map(this.store.get(plural));
    for (let i = this.history.length - 1; i >= 0; i--) {
      const ev = this.history[i] as HistoryEvent;
      if (ev.rv <= atRv) break;
      if (ev.plural !== plural) continue;
      if (ev.type === 'ADDED') objects.delete(ev.key);
      else objects.set(ev.key, ev.prev as Obj);
    }
    return objects;
  }

  private list(
    route: { plural: string; namespace?: string },
    q: Record<string, string>,
    res: ServerResponse,
    fault?: Fault,
  ): void {
    const limit = Number(q.limit ?? 0);
    let atRv = this.rv;
    let after = '';
    if (q.continue) {
      let token: { rv: number; start: string };
      try {
        token = JSON.parse(Buffer.from(q.continue, 'base64').toString()) as { rv: number; start: string };
      } catch {
        return this.fail(res, 400, 'BadRequest', 'continue key is not valid');
      }
      if (token.rv < this.compactedRv) {
        return this.fail(
          res,
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
      }
      atRv = token.rv;
      after = token.start;
    } else if (q.resourceVersion && q.resourceVersion !== '0') {
      const wanted = Number(q.resourceVersion);
      if (wanted > this.rv)
        return this.fail(res, 504, 'Timeout', `Too large resource version: ${wanted}, current: ${this.rv}`);
      if (q.resourceVersionMatch === 'Exact') {
        if (wanted < this.compactedRv)
          return this.fail(res, 410, 'Expired', `too old resource version: ${wanted} (${this.compactedRv})`);
        atRv = wanted;
      }
    }
    const all = [...this.snapshot(route.plural, atRv).entries()]
      .filter(([key, o]) => key > after && (!route.namespace || o.metadata.namespace === route.namespace))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const page = limit > 0 ? all.slice(0, limit) : all;
    const remaining = all.length - page.length;
    const last = page.at(-1)?.[0];
    const metadata: Record<string, unknown> = { resourceVersion: String(atRv) };
    if (remaining > 0 && last !== undefined) {
      metadata.continue = Buffer.from(JSON.stringify({ rv: atRv, start: last })).toString('base64');
      metadata.remainingItemCount = remaining;
    }
    const kind = RESOURCES[route.plural]?.kind ?? '';
    const items = page.map(([, o]) => {
      const { apiVersion: _a, kind: _k, ...rest } = o;
      return rest;
    });
    const body = JSON.stringify({ kind: `${kind}List`, apiVersion: GROUP_VERSION, metadata, items });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    if (fault?.drop) {
      res.write(body.slice(0, Math.floor(body.length / 2)));
      setImmediate(() => res.socket?.destroy());
      return;
    }
    res.end(body);
    if (fault?.expireContinue) this.compact();
  }

  private watch(route: { plural: string; namespace?: string }, q: Record<string, string>, res: ServerResponse): void {
    const from = q.resourceVersion && q.resourceVersion !== '0' ? Number(q.resourceVersion) : undefined;
    if (from !== undefined && from < this.compactedRv) {
      const message = `too old resource version: ${from} (${this.compactedRv})`;
      if (this.opts.goneAsHttpStatus) return this.fail(res, 410, 'Expired', message);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(`${JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', message) })}\n`);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
    const w: Watcher = {
      plural: route.plural,
      res,
      bookmarks: q.allowWatchBookmarks === 'true',
      timers: [],
      ...(route.namespace ? { namespace: route.namespace } : {}),
    };
    if (from === undefined) {
      // No resourceVersion: the current state as synthetic ADDED events, then changes.
      const current = [...(this.store.get(route.plural)?.values() ?? [])].sort((a, b) =>
        keyOf(a) < keyOf(b) ? -1 : 1,
      );
      for (const o of current) if (!w.namespace || o.metadata.namespace === w.namespace) this.send(w, 'ADDED', o);
    } else {
      for (const ev of this.history) if (ev.rv > from && this.matches(w, ev)) this.send(w, ev.type, ev.object);
    }
    this.watchers.add(w);
    res.on('close', () => this.unwatch(w));
    const timeout = Number(q.timeoutSeconds ?? 0);
    if (timeout > 0) w.timers.push(setTimeout(() => this.endWatch(w), timeout * 1000));
    if (w.bookmarks && this.opts.bookmarkIntervalMs)
      w.timers.push(setInterval(() => this.sendBookmark(w), this.opts.bookmarkIntervalMs));
  }

  private matches(w: Watcher, ev: HistoryEvent): boolean {
    return w.plural === ev.plural && (!w.namespace || ev.object.metadata.namespace === w.namespace);
  }

  private send(w: Watcher, type: string, object: object): void {
    w.res.write(`${JSON.stringify({ type, object })}\n`);
  }

  private sendBookmark(w: Watcher): void {
    this.send(w, 'BOOKMARK', {
      kind: RESOURCES[w.plural]?.kind,
      apiVersion: GROUP_VERSION,
      metadata: { resourceVersion: String(this.rv) },
    });
  }

  /** A clean end: the server's watch timeout. */
  private endWatch(w: Watcher): void {
    this.unwatch(w);
    w.res.end();
  }

  private unwatch(w: Watcher): void {
    this.watchers.delete(w);
    for (const t of w.timers) clearTimeout(t);
    w.timers = [];
  }
}

// --- admissionregistration.k8s.io/v1 webhook configurations ------------------------------------
// GET and DELETE by name, as the chart's uninstall hook (`version-policy remove-webhooks`) uses
// them. The Gardener store above knows nothing of these; nothing here lists or watches.

const WEBHOOK_PREFIX = '/apis/admissionregistration.k8s.io/v1/';
const WEBHOOK_KINDS = {
  validatingwebhookconfigurations: 'ValidatingWebhookConfiguration',
  mutatingwebhookconfigurations: 'MutatingWebhookConfiguration',
} as const;
export type WebhookConfigurationKind = (typeof WEBHOOK_KINDS)[keyof typeof WEBHOOK_KINDS];

interface StoredWebhookConfiguration {
  object: Obj;
  /** GETs that still find it after its DELETE, as a finalizer would keep it. */
  lingerGets: number;
  deleting: boolean;
}

export class WebhookConfigurations {
  private readonly objects = new Map<string, StoredWebhookConfiguration>();
  private readonly faults: { status: number; name?: string }[] = [];
  private uid = 0;

  /** Creates a configuration; `lingerGets` GETs still find it after it was deleted. */
  add(kind: WebhookConfigurationKind, name: string, opts: { lingerGets?: number } = {}): void {
    const object: Obj = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind,
      metadata: { name, uid: `webhook-uid-${++this.uid}` },
      webhooks: [],
    };
    this.objects.set(`${kind}/${name}`, { object, lingerGets: opts.lingerGets ?? 0, deleting: false });
  }

  has(kind: WebhookConfigurationKind, name: string): boolean {
    return this.objects.has(`${kind}/${name}`);
  }

  /** The next requests for webhook configurations (named `name`, if given) answer these HTTP statuses, one each. */
  injectStatus(statuses: number[], name?: string): void {
    this.faults.push(...statuses.map((status) => ({ status, ...(name ? { name } : {}) })));
  }

  handles(path: string): boolean {
    return path.startsWith(WEBHOOK_PREFIX);
  }

  /** Whether a request is this store's: a DELETE, or one that names an object or a fault of it. */
  claims(method: string, path: string): boolean {
    if (!this.handles(path)) return false;
    if (method === 'DELETE') return true;
    const [plural = '', name = ''] = path.slice(WEBHOOK_PREFIX.length).split('/');
    const kind = WEBHOOK_KINDS[plural as keyof typeof WEBHOOK_KINDS] as WebhookConfigurationKind | undefined;
    const decoded = decodeURIComponent(name);
    return (
      (kind !== undefined && this.objects.has(`${kind}/${decoded}`)) ||
      this.faults.some((f) => !f.name || f.name === decoded)
    );
  }

  handle(method: string, path: string, res: ServerResponse): void {
    const [plural = '', name, ...rest] = path.slice(WEBHOOK_PREFIX.length).split('/');
    const kind = WEBHOOK_KINDS[plural as keyof typeof WEBHOOK_KINDS] as WebhookConfigurationKind | undefined;
    const send = (code: number, body: object) => {
      res.writeHead(code, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (!kind || !name || rest.length > 0)
      return send(404, status(404, 'NotFound', `the server could not find the requested resource (${path})`));
    const faultAt = this.faults.findIndex((f) => !f.name || f.name === decodeURIComponent(name));
    const fault = faultAt >= 0 ? this.faults.splice(faultAt, 1)[0]!.status : undefined;
    if (fault) return send(fault, status(fault, fault === 403 ? 'Forbidden' : 'InternalError', 'injected fault'));
    const key = `${kind}/${decodeURIComponent(name)}`;
    const stored = this.objects.get(key);
    const notFound = () =>
      send(
        404,
        status(404, 'NotFound', `${plural}.admissionregistration.k8s.io "${decodeURIComponent(name)}" not found`),
      );
    if (method === 'GET') {
      if (!stored) return notFound();
      if (stored.deleting && stored.lingerGets-- <= 0) {
        this.objects.delete(key);
        return notFound();
      }
      return send(200, stored.object);
    }
    if (method === 'DELETE') {
      if (!stored) return notFound();
      if (stored.lingerGets > 0) stored.deleting = true;
      else this.objects.delete(key);
      return send(200, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name: stored.object.metadata.name, kind: plural, uid: stored.object.metadata.uid },
      });
    }
    send(405, status(405, 'MethodNotAllowed', `${method} is not supported by this fake`));
  }
}

// --- Secrets and webhook configurations ----------------------------------------------------------
// What the self-managed certificate source talks to. Each write gets the next resourceVersion of
// the shared counter; a PUT whose metadata.resourceVersion is not the stored one is answered 409
// Conflict, as kube-apiserver answers an optimistic-concurrency loss.

export interface StoredObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; uid?: string } & Record<string, unknown>;
  [field: string]: unknown;
}

export interface WriteRecord {
  method: string;
  path: string;
  status: number;
  /** When it was applied (epoch ms). */
  at: number;
  /** The object as stored after a successful write. */
  object?: StoredObject;
}

interface CoreRoute {
  kind: string;
  apiVersion: string;
  plural: string;
  namespaced: boolean;
  namespace?: string;
  name?: string;
}

const CORE_ROUTES: { pattern: RegExp; kind: string; apiVersion: string; plural: string; namespaced: boolean }[] = [
  {
    pattern: /^\/api\/v1\/namespaces\/([^/]+)\/secrets(?:\/([^/]+))?$/,
    kind: 'Secret',
    apiVersion: 'v1',
    plural: 'secrets',
    namespaced: true,
  },
  {
    pattern: /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases(?:\/([^/]+))?$/,
    kind: 'Lease',
    apiVersion: 'coordination.k8s.io/v1',
    plural: 'leases',
    namespaced: true,
  },
  {
    pattern: /^\/apis\/openreports\.io\/v1alpha1\/namespaces\/([^/]+)\/reports(?:\/([^/]+))?$/,
    kind: 'Report',
    apiVersion: 'openreports.io/v1alpha1',
    plural: 'reports',
    namespaced: true,
  },
  {
    // Every namespace's Reports: LIST only.
    pattern: /^\/apis\/openreports\.io\/v1alpha1\/reports$/,
    kind: 'Report',
    apiVersion: 'openreports.io/v1alpha1',
    plural: 'reports',
    namespaced: false,
  },
  {
    pattern: /^\/apis\/openreports\.io\/v1alpha1\/clusterreports(?:\/([^/]+))?$/,
    kind: 'ClusterReport',
    apiVersion: 'openreports.io/v1alpha1',
    plural: 'clusterreports',
    namespaced: false,
  },
  {
    pattern: /^\/apis\/admissionregistration\.k8s\.io\/v1\/validatingwebhookconfigurations(?:\/([^/]+))?$/,
    kind: 'ValidatingWebhookConfiguration',
    apiVersion: 'admissionregistration.k8s.io/v1',
    plural: 'validatingwebhookconfigurations',
    namespaced: false,
  },
  {
    pattern: /^\/apis\/admissionregistration\.k8s\.io\/v1\/mutatingwebhookconfigurations(?:\/([^/]+))?$/,
    kind: 'MutatingWebhookConfiguration',
    apiVersion: 'admissionregistration.k8s.io/v1',
    plural: 'mutatingwebhookconfigurations',
    namespaced: false,
  },
];

const objectKey = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace ?? ''}/${name}`;

export class CoreObjects {
  /** Every write (POST, PUT, PATCH) with its answer. */
  readonly writes: WriteRecord[] = [];
  private readonly store = new Map<string, StoredObject>();
  private readonly writeListeners: ((w: WriteRecord) => void)[] = [];
  private conflicts = 0;
  private uid = 0;

  constructor(private readonly nextResourceVersion: () => string) {}

  /** Calls `listener` as each write is applied, before it is answered: what the cluster held at that instant. */
  onWrite(listener: (w: WriteRecord) => void): void {
    this.writeListeners.push(listener);
  }

  /** Creates or replaces an object as a test fixture (no preconditions); returns the stored copy. */
  put(obj: StoredObject): StoredObject {
    const o = structuredClone(obj);
    const key = objectKey(o.kind, o.metadata.namespace, o.metadata.name);
    o.metadata.uid = this.store.get(key)?.metadata.uid ?? `core-uid-${++this.uid}`;
    o.metadata.resourceVersion = this.nextResourceVersion();
    this.store.set(key, o);
    return structuredClone(o);
  }

  get(kind: string, namespace: string | undefined, name: string): StoredObject | undefined {
    const o = this.store.get(objectKey(kind, namespace, name));
    return o && structuredClone(o);
  }

  /**
   * The next `n` PUTs lose a race: another writer updates the object first (its resourceVersion
   * moves on), so they get 409 Conflict.
   */
  conflictNextWrites(n = 1): void {
    this.conflicts += n;
  }

  serves(path: string): boolean {
    return CORE_ROUTES.some((r) => r.pattern.test(path));
  }

  private route(path: string): CoreRoute | undefined {
    for (const r of CORE_ROUTES) {
      const m = r.pattern.exec(path);
      if (!m) continue;
      const [namespace, name] = r.namespaced ? [m[1], m[2]] : [undefined, m[1]];
      return {
        kind: r.kind,
        apiVersion: r.apiVersion,
        plural: r.plural,
        namespaced: r.namespaced,
        ...(namespace ? { namespace } : {}),
        ...(name ? { name } : {}),
      };
    }
    return undefined;
  }

  handle(req: IncomingMessage, res: ServerResponse, path: string): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const route = this.route(path) as CoreRoute;
      const answer = this.answer(
        req.method ?? '',
        req.headers['content-type'] ?? '',
        route,
        Buffer.concat(chunks).toString('utf8'),
        new URL(req.url ?? '/', 'https://fake').searchParams,
      );
      if (req.method !== 'GET') {
        const record: WriteRecord = {
          method: req.method ?? '',
          path,
          status: answer.code,
          at: Date.now(),
          ...(answer.code < 300 ? { object: answer.body as StoredObject } : {}),
        };
        this.writes.push(record);
        for (const listener of this.writeListeners) listener(record);
      }
      res.writeHead(answer.code, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  }

  private answer(
    method: string,
    contentType: string,
    route: CoreRoute,
    text: string,
    query: URLSearchParams,
  ): { code: number; body: unknown } {
    const key = route.name ? objectKey(route.kind, route.namespace, route.name) : '';
    const stored = this.store.get(key);
    const notFound = () => ({
      code: 404,
      body: status(404, 'NotFound', `${route.plural} "${route.name ?? ''}" not found`),
    });
    let body: StoredObject | Operation[];
    if (method !== 'GET' && method !== 'DELETE') {
      try {
        body = JSON.parse(text) as StoredObject | Operation[];
      } catch {
        return { code: 400, body: status(400, 'BadRequest', 'the request body is not JSON') };
      }
    }
    switch (method) {
      case 'GET':
        if (!route.name) return { code: 200, body: this.list(route, query) };
        return stored ? { code: 200, body: stored } : notFound();
      case 'DELETE':
        if (!stored || !route.name) return notFound();
        this.store.delete(key);
        return { code: 200, body: stored };
      case 'POST': {
        const o = body! as StoredObject;
        if (route.name || (route.namespaced && !route.namespace) || (!route.namespaced && route.kind === 'Report'))
          return { code: 405, body: status(405, 'MethodNotAllowed', 'POST to a collection only') };
        if (route.namespace) o.metadata.namespace = route.namespace;
        if (this.store.has(objectKey(route.kind, route.namespace, o.metadata.name))) {
          return {
            code: 409,
            body: status(409, 'AlreadyExists', `${route.plural} "${o.metadata.name}" already exists`),
          };
        }
        return { code: 201, body: this.store1(route, o, undefined) };
      }
      case 'PUT': {
        const o = body! as StoredObject;
        if (!stored || !route.name) return notFound();
        if (this.conflicts > 0) {
          this.conflicts--;
          stored.metadata.resourceVersion = this.nextResourceVersion();
        }
        const rv = o.metadata?.resourceVersion;
        if (rv !== undefined && rv !== stored.metadata.resourceVersion) {
          return {
            code: 409,
            body: status(
              409,
              'Conflict',
              `Operation cannot be fulfilled on ${route.plural} "${route.name}": the object has been modified; please apply your changes to the latest version and try again`,
            ),
          };
        }
        const bad = Object.entries((o.data ?? {}) as Record<string, unknown>).find(
          ([, v]) => typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v),
        );
        if (bad) return { code: 400, body: status(400, 'BadRequest', `data[${bad[0]}]: not base64`) };
        return { code: 200, body: this.store1(route, o, stored) };
      }
      case 'PATCH': {
        if (!stored) return notFound();
        if (!contentType.startsWith('application/json-patch+json'))
          return {
            code: 415,
            body: status(415, 'UnsupportedMediaType', `this fake applies only JSON Patch, not ${contentType}`),
          };
        let patched: StoredObject;
        try {
          patched = jsonpatch.applyPatch(structuredClone(stored), body! as Operation[], true, false).newDocument;
        } catch (err) {
          return {
            code: 422,
            body: status(422, 'Invalid', `the JSON patch cannot be applied: ${(err as Error).message}`),
          };
        }
        return { code: 200, body: this.store1(route, patched, stored) };
      }
      default:
        return { code: 405, body: status(405, 'MethodNotAllowed', `${method} is not supported by this fake`) };
    }
  }

  /** A LIST in one page: a route's kind, in its namespace if it names one, matching `labelSelector` (`k=v,…`). */
  private list(route: CoreRoute, query: URLSearchParams): { kind: string; metadata: object; items: StoredObject[] } {
    const wanted = (query.get('labelSelector') ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => pair.split('='));
    const items = [...this.store.values()].filter(
      (o) =>
        o.kind === route.kind &&
        (route.namespace === undefined || o.metadata.namespace === route.namespace) &&
        wanted.every(([k, v]) => (o.metadata.labels as Record<string, string> | undefined)?.[k!] === v),
    );
    return { kind: `${route.kind}List`, metadata: {}, items: items.map((o) => structuredClone(o)) };
  }

  /** Every stored object of a kind, for assertions. */
  all(kind: string): StoredObject[] {
    return [...this.store.values()].filter((o) => o.kind === kind).map((o) => structuredClone(o));
  }

  private store1(route: CoreRoute, o: StoredObject, prev: StoredObject | undefined): StoredObject {
    o.apiVersion = route.apiVersion;
    o.kind = route.kind;
    o.metadata = {
      ...o.metadata,
      uid: prev?.metadata.uid ?? `core-uid-${++this.uid}`,
      resourceVersion: this.nextResourceVersion(),
    };
    if (route.namespace) o.metadata.namespace = route.namespace;
    this.store.set(objectKey(route.kind, route.namespace, o.metadata.name), o);
    return structuredClone(o);
  }
}
