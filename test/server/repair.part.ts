// Repair is always possible (issue 24): a profile stored over the request limits (written before
// the webhook was installed, or while it was off) can be shrunk and deleted. The limits apply to
// what a request adds, never to the stored oldObject.
import t from '../helpers/parts.js';
import { LIMITS } from '../../src/api/limits.js';
import { cloudProfile } from '../helpers/objects.js';
import { review, startServer, type ReviewReply } from '../helpers/server.js';

const k8s = (n: number) => Array.from({ length: n }, (_, i) => `1.${Math.floor(i / 100)}.${i % 100}`);
const over = LIMITS.versionsPerList + 1;
const stored = cloudProfile({ name: 'legacy', kubernetes: k8s(over) });

const s = await startServer();
t.teardown(s.close);

async function answer(path: string, body: unknown): Promise<ReviewReply['response']> {
  const reply = await s.post(path, body);
  if (reply.status !== 200) throw new Error(`HTTP ${reply.status}: ${reply.text}`);
  return reply.json<ReviewReply>().response;
}

t.test(`a stored profile with ${over} versions is shrunk below the limit, on both webhooks`, async (t) => {
  const shrunk = cloudProfile({ name: 'legacy', kubernetes: k8s(900) });
  for (const path of ['/mutate', '/validate']) {
    const r = await answer(path, review({ operation: 'UPDATE', oldObject: stored, object: shrunk }));
    t.notMatch(r.status?.message ?? '', /SCHEMA/, `${path}: judged, not refused for the old object's size`);
    t.equal(r.allowed, true, path);
  }
});

t.test('an UPDATE that keeps an over-limit list, or shrinks it toward the limit, is judged', async (t) => {
  for (const n of [over, over - 1]) {
    const r = await answer(
      '/validate',
      review({ operation: 'UPDATE', oldObject: stored, object: cloudProfile({ name: 'legacy', kubernetes: k8s(n) }) }),
    );
    t.equal(r.allowed, true, `${n} versions`);
  }
});

t.test('an UPDATE may not grow an over-limit list, nor create one past it', async (t) => {
  const grown = await answer(
    '/validate',
    review({
      operation: 'UPDATE',
      oldObject: stored,
      object: cloudProfile({ name: 'legacy', kubernetes: k8s(over + 1) }),
    }),
  );
  t.equal(grown.allowed, false);
  t.equal(
    grown.status?.message,
    `[SCHEMA] spec.kubernetes.versions: has 1,002 versions, more than the limit of 1,000 per list and the 1,001 the stored object holds`,
  );
  const created = await answer('/validate', review({ operation: 'CREATE', object: stored }));
  t.equal(created.allowed, false, 'a CREATE has nothing stored: the limits hold');
  t.match(
    created.status?.message,
    /^\[SCHEMA\] spec\.kubernetes\.versions: has 1,001 versions, more than the limit of 1,000 per list$/,
  );
});

t.test(
  'a profile stored past the ceiling (twice the limits) is shrunk within it; a request past it is refused',
  async (t) => {
    const past = cloudProfile({ name: 'legacy', kubernetes: k8s(2_500) });
    const within = await answer(
      '/validate',
      review({
        operation: 'UPDATE',
        oldObject: past,
        object: cloudProfile({ name: 'legacy', kubernetes: k8s(2_000) }),
      }),
    );
    t.equal(within.allowed, true, 'shrunk to the ceiling: judged');
    const beyond = await answer(
      '/validate',
      review({
        operation: 'UPDATE',
        oldObject: past,
        object: cloudProfile({ name: 'legacy', kubernetes: k8s(2_400) }),
      }),
    );
    t.equal(
      beyond.status?.message,
      '[SCHEMA] spec.kubernetes.versions: has 2,400 versions, more than the limit of 1,000 per list and the ceiling of 2,000 for an object stored past it',
    );
  },
);

t.test(`the over-limit profile, and one ten times the limit, are deleted`, async (t) => {
  for (const profile of [stored, cloudProfile({ name: 'huge', kubernetes: k8s(LIMITS.versionEntries) })]) {
    const r = await answer('/validate', review({ operation: 'DELETE', oldObject: profile }));
    t.equal(r.allowed, true, `${profile.spec.kubernetes.versions.length} versions`);
    t.notMatch(r.status?.message ?? '', /SCHEMA/);
  }
});
