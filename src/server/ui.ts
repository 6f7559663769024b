// The timeline pages, from the informer cache: GET /profiles lists the profiles, GET
// /profiles/<name> and /profiles/<namespace>/<name> show one (the page `explain --output html`
// writes). Read-only and off by default (server.ui.enabled). A page shows what it draws and no
// object body; its strict CSP allows nothing but the page's own inline style.
//
// A page is built on the event loop that answers admission reviews, and building the report costs
// (Shoot version uses × versions): 0.1-0.3 s for 1,000-5,000 Shoots. So a page is kept for a few
// seconds, and a build over 100 ms holds the next one back four times as long (the pages take at
// most a fifth of the loop); meanwhile the answer is 503 with Retry-After, not a slower webhook.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ClusterState } from '../api/cluster-state.js';
import type { CloudProfile, NamespacedCloudProfile } from '../api/types.js';
import { type ForecastCounts, renderIndexPage } from '../report/index-page.js';
import { MissingParentError } from '../report/profile.js';
import { type MadeForecast, PAGE_CSP, renderProfilesPage } from '../report/timeline-page.js';
import { parseWindowBound, resolveWindow, type TimelineWindow, WindowError } from '../report/window.js';

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
  forecast?: { latest(): (ForecastCounts & MadeForecast) | undefined };
  /** A monotonic clock in ms, for the render budget and the page cache (tests inject one). */
  monotonic?: () => number;
}

/** How long a built page is served again: long enough to absorb reloads, short next to any lifecycle. */
const PAGE_TTL_MS = 10_000;
const CACHED_PAGES = 32;
/** The share of the event loop the pages may take... */
const RENDER_SHARE = 0.2;
/** ...counting only builds long enough to delay a review noticeably; a small profile is never refused. */
const RENDER_FREE_MS = 100;

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
  const budget = new RenderBudget(opts.monotonic ?? (() => performance.now()));
  // HEAD comes with every GET route (fastify's exposeHeadRoutes); everything else is refused.
  app.get('/profiles', (_req, reply) =>
    whenSynced(opts.state, reply, () =>
      sendHtml(reply, renderIndexPage(opts.state, opts.forecast?.latest(), opts.now())),
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

function whenSynced(state: ClusterState, reply: FastifyReply, page: () => FastifyReply): FastifyReply {
  // An unsynced cache would draw a landscape with Shoots missing; say so instead.
  if (!state.synced)
    return sendText(reply, 503, `cluster state not synced${state.notReadyReason ? `: ${state.notReadyReason}` : ''}`);
  return page();
}

function profilePage(
  req: FastifyRequest<PageRequest>,
  reply: FastifyReply,
  opts: ProfilePagesOptions,
  budget: RenderBudget,
  profile: CloudProfile | NamespacedCloudProfile | undefined,
): FastifyReply {
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
  const wait = budget.waitMs();
  if (wait > 0) {
    return sendText(
      reply.header('retry-after', String(Math.ceil(wait / 1000))),
      503,
      'busy: pages are built at most a fifth of the time, so that admission reviews are never delayed; retry shortly',
    );
  }
  const now = opts.now();
  let window: TimelineWindow;
  try {
    window = resolveWindow(
      now,
      req.query.from === undefined ? undefined : parseWindowBound(req.query.from),
      req.query.to === undefined ? undefined : parseWindowBound(req.query.to),
    );
  } catch (err) {
    if (err instanceof WindowError) return sendText(reply, 400, `from/to: ${err.message}`);
    throw err;
  }
  try {
    const forecast = opts.forecast ? (opts.forecast.latest() ?? 'pending') : undefined;
    return sendHtml(
      reply,
      budget.build(cacheKey, () => renderProfilesPage([profile], opts.state, now, window, forecast)),
    );
  } catch (err) {
    if (err instanceof MissingParentError) return sendText(reply, 404, err.message);
    throw err;
  }
}

/** Builds pages within a share of the event loop, and keeps each for a few seconds. */
class RenderBudget {
  private openAt = 0;
  private readonly pages = new Map<string, { page: string; until: number }>();

  constructor(private readonly clock: () => number) {}

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

  build(key: string, render: () => string): string {
    const start = this.clock();
    const page = render();
    const end = this.clock();
    // After a build that took d, the next waits 4d: the pages take at most a fifth of the loop.
    this.openAt = end - start < RENDER_FREE_MS ? 0 : start + (end - start) / RENDER_SHARE;
    if (this.pages.size >= CACHED_PAGES) this.pages.delete(this.pages.keys().next().value!);
    this.pages.set(key, { page, until: end + PAGE_TTL_MS });
    return page;
  }
}

function sendHtml(reply: FastifyReply, page: string): FastifyReply {
  return reply.headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(page);
}

function sendText(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.code(status).headers(SECURITY_HEADERS).type('text/plain; charset=utf-8').send(`${text}\n`);
}
