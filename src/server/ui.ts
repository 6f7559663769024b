// The timeline pages, from the informer cache: GET /profiles lists the profiles, GET
// /profiles/<name> and /profiles/<namespace>/<name> show one (the page `explain --output html`
// writes). Read-only and off by default (server.ui.enabled). A page shows what it draws and no
// object body; its strict CSP allows nothing but the page's own inline style.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ClusterState } from '../cluster/state.js';
import type { CloudProfile, NamespacedCloudProfile } from '../policy/types.js';
import { clip, html } from '../report/html-template.js';
import { MissingParentError } from '../report/profile.js';
import { PAGE_CSP, renderProfilesPage } from '../report/timeline-page.js';
import { PAGE_CSS } from '../report/timeline-style.js';
import { parseWindowBound, resolveWindow, type TimelineWindow, WindowError } from '../report/window.js';

export interface ProfilePagesOptions {
  state: ClusterState;
  /** The server clock (epoch ms). */
  now: () => number;
}

/** The list shows at most this many profiles; a landscape has tens. */
const MAX_LISTED = 2000;
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
  // HEAD comes with every GET route (fastify's exposeHeadRoutes); everything else is refused.
  app.get('/profiles', (_req, reply) => whenSynced(opts.state, reply, () => sendHtml(reply, listPage(opts.state))));
  app.get<PageRequest>('/profiles/:name', (req, reply) => whenSynced(opts.state, reply, () => profilePage(req, reply, opts, opts.state.cloudProfile(req.params.name!))));
  app.get<PageRequest>('/profiles/:namespace/:name', (req, reply) =>
    whenSynced(opts.state, reply, () => profilePage(req, reply, opts, opts.state.namespacedCloudProfile(req.params.namespace!, req.params.name!))),
  );
  for (const url of PATHS) {
    app.route({ method: ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], url, handler: (_req, reply) => sendText(reply.header('allow', 'GET, HEAD'), 405, 'read-only: GET or HEAD') });
  }
}

function whenSynced(state: ClusterState, reply: FastifyReply, page: () => FastifyReply): FastifyReply {
  // An unsynced cache would draw a landscape with Shoots missing; say so instead.
  if (!state.synced) return sendText(reply, 503, `cluster state not synced${state.notReadyReason ? `: ${state.notReadyReason}` : ''}`);
  return page();
}

function profilePage(req: FastifyRequest<PageRequest>, reply: FastifyReply, opts: ProfilePagesOptions, profile: CloudProfile | NamespacedCloudProfile | undefined): FastifyReply {
  const key = [req.params.namespace, req.params.name].filter((p) => p !== undefined).join('/');
  if (!profile) return sendText(reply, 404, `no ${req.params.namespace === undefined ? 'CloudProfile' : 'NamespacedCloudProfile'} "${key}" in the cluster state`);
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
    return sendHtml(reply, renderProfilesPage([profile], opts.state, now, window));
  } catch (err) {
    if (err instanceof MissingParentError) return sendText(reply, 404, err.message);
    throw err;
  }
}

/** CloudProfiles, then NamespacedCloudProfiles as namespace/name, each linking to its page. */
function listPage(state: ClusterState): string {
  const cloud: string[] = [];
  const namespaced: Array<[string, string]> = [];
  for (const p of state.allProfiles()) {
    if (p.kind === 'CloudProfile') cloud.push(p.metadata.name);
    else namespaced.push([p.metadata.namespace, p.metadata.name]);
  }
  cloud.sort();
  namespaced.sort((a, b) => a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]));
  const links = [
    ...cloud.map((name) => ({ href: `profiles/${encodeURIComponent(name)}`, text: name, kind: 'CloudProfile' })),
    ...namespaced.map(([ns, name]) => ({ href: `profiles/${encodeURIComponent(ns)}/${encodeURIComponent(name)}`, text: `${ns}/${name}`, kind: 'NamespacedCloudProfile' })),
  ];
  const items = links.slice(0, MAX_LISTED).map((l) => html`<li class="profile-link" data-kind="${l.kind}"><a href="${l.href}">${clip(l.text, 300)}</a> <span class="more">${l.kind}</span></li>`);
  const more = links.length > MAX_LISTED ? html`<p class="more">and ${links.length - MAX_LISTED} more</p>` : null;
  return `<!doctype html>\n${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Profiles</title><style>${PAGE_CSS}</style></head>
<body><main><h1>Profiles</h1><p class="meta">The version timeline of each CloudProfile and NamespacedCloudProfile in the cluster state.</p>
${links.length === 0 ? html`<p>No profiles in the cluster state.</p>` : html`<ul>${items}</ul>${more}`}</main></body></html>`.value}\n`;
}

function sendHtml(reply: FastifyReply, page: string): FastifyReply {
  return reply.headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(page);
}

function sendText(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.code(status).headers(SECURITY_HEADERS).type('text/plain; charset=utf-8').send(`${text}\n`);
}
