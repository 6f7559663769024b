// The timeline pages, from the informer cache: GET /profiles lists the profiles, GET
// /profiles/<name> and /profiles/<namespace>/<name> show one (the page `explain --output html`
// writes). Read-only and off by default (server.ui.enabled). A page shows what it draws and no
// object body; its strict CSP allows nothing but the page's own inline style.
//
// A page is built on the event loop that answers admission reviews, and building the report costs
// (Shoot version uses × versions): 0.1-0.3 s for 1,000-5,000 Shoots. So a page is kept for a few
// seconds, pages are built one at a time, and a build over 100 ms of the main thread's CPU holds
// the next one back four times as long (the pages take at most a fifth of the loop). A request
// that comes meanwhile waits its turn, off the loop: a browser does not retry a 503, so only a
// flood of requests (more than MAX_WAITING at once) is answered 503 with Retry-After.
//
// GET / lists the pages, the probes and the metrics, for a person who opens the port in a browser.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ClusterState } from '../api/cluster-state.js';
import type { CloudProfile, NamespacedCloudProfile } from '../api/types.js';
import { html } from '../report/html-template.js';
import { type ForecastCounts, renderIndexPage } from '../report/index-page.js';
import { MissingParentError } from '../report/profile.js';
import { type MadeForecast, PAGE_CSP, renderProfilesPage } from '../report/timeline-page.js';
import { PAGE_CSS } from '../report/timeline-style.js';
import { parseWindowBound, resolveWindow, type WindowBound, WindowError } from '../report/window.js';

/** Whether a URL is one of the pages' (a 404 there says where the pages are, or how to turn them on). */
export const isPagePath = (url: string): boolean => /^\/profiles(?:[/?]|$)/.test(url);

/** Why a server has no pages: they are off, or (for the webhook port) on the probe port. */
export function pagesElsewhere(server: { ui: { enabled: boolean }; probePort: number }): string {
  return server.ui.enabled
    ? `the timeline pages are on the probe port (server.probePort ${server.probePort}), over plain HTTP`
    : 'the timeline pages are off: turn them on with server.ui.enabled: true in the config (docs/timeline.md)';
}

export interface ProfilePagesOptions {
  state: ClusterState;
  /** The server clock (epoch ms). */
  now: () => number;
  /**
   * The server's fleet forecast (forecast-refresh.ts): the index's counts and the pages' steps come
   * from it, so no request forecasts. Without it the index leaves those counts blank and a page
   * forecasts its own profile's Shoots (tests; small states).
   */
  fleetForecast?: { latest(): (ForecastCounts & MadeForecast) | undefined };
  /** A monotonic clock in ms, for the render budget and the page cache (tests inject one). */
  monotonic?: () => number;
  /** The main thread's CPU time in ms, what a build costs the loop; tests inject one. */
  cpu?: () => number;
  /** Waits `ms` on the monotonic clock; tests inject one that moves theirs. */
  sleep?: (ms: number) => Promise<void>;
}

/** How long a built page is served again: long enough to absorb reloads, short next to any lifecycle. */
const PAGE_TTL_MS = 10_000;
const CACHED_PAGES = 32;
/** The share of the event loop the pages may take... */
const RENDER_SHARE = 0.2;
/** ...counting only builds long enough to delay a review noticeably; a small profile never waits. */
const RENDER_FREE_MS = 100;
/** Requests that may wait for their turn at once: a person's clicks fit, a flood gets 503. */
const MAX_WAITING = 16;

const PATHS = ['/profiles', '/profiles/:name', '/profiles/:namespace/:name'];

const SECURITY_HEADERS = {
  'content-security-policy': `${PAGE_CSP}; frame-ancestors 'none'`,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

interface PageRequest {
  Params: { name?: string; namespace?: string };
  Querystring: { from?: string; to?: string };
}

export function registerProfilePages(app: FastifyInstance, opts: ProfilePagesOptions): void {
  const budget = new RenderBudget(
    opts.monotonic ?? (() => performance.now()),
    opts.cpu ?? mainThreadCpuMs,
    opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  );
  // HEAD comes with every GET route (fastify's exposeHeadRoutes); everything else is refused.
  app.get('/profiles', (_req, reply) =>
    whenSynced(opts.state, reply, () =>
      sendHtml(reply, renderIndexPage(opts.state, opts.fleetForecast?.latest(), opts.now())),
    ),
  );
  app.get<PageRequest>('/profiles/:name', (req, reply) =>
    whenSynced(opts.state, reply, () =>
      profilePage(req, reply, opts, budget, opts.state.cloudProfile(req.params.name!)),
    ),
  );
  app.get<PageRequest>('/profiles/:namespace/:name', (req, reply) =>
    whenSynced(opts.state, reply, () =>
      profilePage(req, reply, opts, budget, opts.state.namespacedCloudProfile(req.params.namespace!, req.params.name!)),
    ),
  );
  for (const url of PATHS) {
    app.route({
      method: ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url,
      handler: (_req, reply) => sendText(reply.header('allow', 'GET, HEAD'), 405, 'read-only: GET or HEAD'),
    });
  }
}

function whenSynced<T>(state: ClusterState, reply: FastifyReply, page: () => T): T | FastifyReply {
  // An unsynced cache would draw a landscape with Shoots missing; say so instead.
  if (!state.synced)
    return sendText(reply, 503, `cluster state not synced${state.notReadyReason ? `: ${state.notReadyReason}` : ''}`);
  return page();
}

async function profilePage(
  req: FastifyRequest<PageRequest>,
  reply: FastifyReply,
  opts: ProfilePagesOptions,
  budget: RenderBudget,
  profile: CloudProfile | NamespacedCloudProfile | undefined,
): Promise<FastifyReply> {
  const key = [req.params.namespace, req.params.name].filter((p) => p !== undefined).join('/');
  if (!profile)
    return sendText(
      reply,
      404,
      `no ${req.params.namespace === undefined ? 'CloudProfile' : 'NamespacedCloudProfile'} "${key}" in the cluster state`,
    );
  const cacheKey = JSON.stringify([req.params.namespace ?? null, key, req.query.from ?? null, req.query.to ?? null]);
  const cached = budget.cached(cacheKey);
  if (cached !== undefined) return sendHtml(reply, cached);
  let bounds: [WindowBound | undefined, WindowBound | undefined];
  try {
    bounds = [
      req.query.from === undefined ? undefined : parseWindowBound(req.query.from),
      req.query.to === undefined ? undefined : parseWindowBound(req.query.to),
    ];
    resolveWindow(opts.now(), ...bounds);
  } catch (err) {
    if (err instanceof WindowError) return sendText(reply, 400, `from/to: ${err.message}`);
    throw err;
  }
  try {
    // Now and the forecast are read when the build's turn comes, not when the request came.
    const page = await budget.build(cacheKey, () => {
      const now = opts.now();
      const forecast = opts.fleetForecast ? (opts.fleetForecast.latest() ?? 'pending') : undefined;
      return renderProfilesPage([profile], opts.state, now, resolveWindow(now, ...bounds), forecast);
    });
    if (page === undefined) {
      return sendText(
        reply.header('retry-after', String(Math.max(1, Math.ceil(budget.waitMs() / 1000)))),
        503,
        `busy: more than ${MAX_WAITING} page requests are waiting for their turn (pages take at most a fifth of the event loop, so that admission reviews are never delayed); retry shortly`,
      );
    }
    return sendHtml(reply, page);
  } catch (err) {
    if (err instanceof MissingParentError) return sendText(reply, 404, err.message);
    throw err;
  }
}

/** Builds pages one at a time within a share of the event loop, and keeps each for a few seconds. */
class RenderBudget {
  private openAt = 0;
  private readonly pages = new Map<string, { page: string; until: number }>();
  private queue: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(
    private readonly clock: () => number,
    private readonly cpu: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  cached(key: string): string | undefined {
    const hit = this.pages.get(key);
    if (hit && hit.until > this.clock()) return hit.page;
    this.pages.delete(key);
    return undefined;
  }

  /** How long until the next page may be built; 0: now. */
  waitMs(): number {
    return Math.max(0, this.openAt - this.clock());
  }

  /** The page, built when its turn comes (or found built meanwhile); undefined: too many are waiting. */
  async build(key: string, render: () => string): Promise<string | undefined> {
    if (this.waiting >= MAX_WAITING) return undefined;
    this.waiting++;
    const turn = this.queue.then(async () => {
      const wait = this.waitMs();
      if (wait > 0) await this.sleep(wait);
      const built = this.cached(key);
      if (built !== undefined) return built;
      const start = this.cpu();
      const page = render();
      const cost = this.cpu() - start;
      // After a build that took d of the loop, the next waits 4d: the pages take at most a fifth of it.
      this.openAt = cost < RENDER_FREE_MS ? 0 : this.clock() + cost * (1 / RENDER_SHARE - 1);
      if (this.pages.size >= CACHED_PAGES) this.pages.delete(this.pages.keys().next().value!);
      this.pages.set(key, { page, until: this.clock() + PAGE_TTL_MS });
      return page;
    });
    this.queue = turn.catch(() => undefined);
    try {
      return await turn;
    } finally {
      this.waiting--;
    }
  }
}

/** The main thread's CPU time in ms (not the GC's helper threads, nor other threads' work); wall time where Node lacks it. */
function mainThreadCpuMs(): number {
  if (typeof process.threadCpuUsage !== 'function') return performance.now();
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

/** GET /: what this port serves, as links, for a person who opens it in a browser. */
export function registerRootPage(
  app: FastifyInstance,
  serves: { pages: boolean; metrics: boolean; probes: boolean },
): void {
  const item = (path: string, what: string) => html`<li><a href="${path}"><code>/${path}</code></a>: ${what}</li>`;
  const items = [
    serves.pages
      ? item(
          'profiles',
          'the version timeline of every CloudProfile and NamespacedCloudProfile, with the maintenance forecast',
        )
      : html`<li>The timeline pages are off: turn them on with <code>server.ui.enabled: true</code> (docs/timeline.md).</li>`,
    serves.probes ? item('healthz', 'liveness') : null,
    serves.probes ? item('readyz', 'readiness: TLS loaded and the cluster state synced') : null,
    serves.metrics ? item('metrics', 'Prometheus metrics') : null,
  ];
  const page = `<!doctype html>\n${
    html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>version-policy</title><style>${PAGE_CSS}</style></head>
<body><main><h1>version-policy</h1><ul class="root-links">${items}</ul></main></body></html>`.value
  }\n`;
  app.get('/', (_req, reply) => sendHtml(reply, page));
}

function sendHtml(reply: FastifyReply, page: string): FastifyReply {
  return reply.headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(page);
}

function sendText(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.code(status).headers(SECURITY_HEADERS).type('text/plain; charset=utf-8').send(`${text}\n`);
}
