// A list/watch endpoint for the informer memory benchmark: HTTPS on 127.0.0.1 with the bench
// certificates and a bearer token, serving `shoots` realistic Shoots (api-objects.js) in LIST
// pages of `limit` with continue tokens (`shoot(i)` makes the i-th, apiShoot by default), the given
// CloudProfiles and NamespacedCloudProfiles, and watches that stay open without events. Pages are built when asked for, so the 100,000 Shoots
// never sit in this process as JSON. Benchmarks only (the tests have their own fake API server).
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { apiShoot } from './api-objects.js';

const PREFIX = '/apis/core.gardener.cloud/v1beta1/';
const TOKEN = 'bench-token';

/** A LIST item carries no apiVersion/kind. */
function listItem(o) {
  const { apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

export async function startListServer(certs, { shoots, profiles, namespacedProfiles = [], shoot = apiShoot }) {
  const watches = new Set();
  const stats = { pages: 0, bytes: 0 };
  const server = createServer({ key: readFileSync(certs.key), cert: readFileSync(certs.cert) }, (req, res) => {
    const url = new URL(req.url, 'https://127.0.0.1');
    const plural = url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) : '';
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return void res.writeHead(401).end();
    if (!['shoots', 'cloudprofiles', 'namespacedcloudprofiles'].includes(plural)) return void res.writeHead(404).end();
    if (url.searchParams.get('watch')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      watches.add(res);
      res.on('close', () => watches.delete(res));
      return;
    }
    let items = [];
    let next = '';
    if (plural === 'cloudprofiles') items = profiles.map(listItem);
    if (plural === 'namespacedcloudprofiles') items = namespacedProfiles.map(listItem);
    if (plural === 'shoots') {
      const from = Number(url.searchParams.get('continue') || 0);
      const limit = Number(url.searchParams.get('limit') || shoots);
      const to = Math.min(shoots, from + limit);
      for (let i = from; i < to; i++) items.push(shoot(i));
      if (to < shoots) next = String(to);
    }
    const body = JSON.stringify({
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'List',
      metadata: { resourceVersion: '1', ...(next ? { continue: next } : {}) },
      items,
    });
    stats.pages++;
    stats.bytes += body.length;
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const kubeconfig = join(certs.dir, `kubeconfig-${port}`);
  await writeFile(
    kubeconfig,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'bench',
          cluster: {
            server: `https://127.0.0.1:${port}`,
            'certificate-authority-data': certs.caPem.toString('base64'),
          },
        },
      ],
      users: [{ name: 'bench', user: { token: TOKEN } }],
      contexts: [{ name: 'bench', context: { cluster: 'bench', user: 'bench' } }],
      'current-context': 'bench',
    }),
  );
  return {
    kubeconfig,
    stats,
    close() {
      for (const res of watches) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
