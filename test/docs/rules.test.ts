// docs/rules.md is the users' rule book: every rule ID has a section, a denied example and its
// fix, and what the page says the webhook answers is what the webhook answers. Each example is
// posted, as kube-apiserver would post it, to a real webhook server over HTTPS (on port 0, with
// certificates made now), judging at the example's `now` against its cluster state with the
// product's default config: to the webhook kubectl names (/mutate for profile writes, which
// kube-apiserver calls first; /validate for Shoots and deletions), and to /validate. The examples are marked for this test with HTML comments before
// their blocks (invisible on the rendered page):
//
//   <!-- example RULE[/variant] ROLE [operation=CREATE|UPDATE|DELETE] [now=RFC3339] [gate=on] [deny=trap,…] -->
//
// ROLE: `state` (the objects that exist), `old` (the stored object of an UPDATE or DELETE),
// `denied` (the object sent), `message` (the line kubectl shows after `Error from server
// (Forbidden): …`), `fixed` (the object that is allowed instead) or `fixed-state` (the state in
// which the same request is allowed); for the mutating rules `sent` and `stored` (the object as
// the mutating webhook's patch leaves it). Attributes go on the `denied` or `sent` comment; `deny`
// is the config's `forecast.deny`.
import jsonpatch from 'fast-json-patch';
import type { Operation as PatchOperation } from 'fast-json-patch';
import t from 'tap';
import { parse } from 'yaml';
import { parseObjects } from '../../src/cluster/object-files.js';
import { RULE_IDS } from '../../src/policy/rules/index.js';
import type { Operation, PolicedObject } from '../../src/api/types.js';
import { NOW_ISO } from '../helpers/objects.js';
import { docExamples, webhookNames, type Example } from '../helpers/doc-examples.js';
import { review, startServer, type ReviewReply, type TestServer } from '../helpers/server.js';

const MUTATING = new Set<string>(['DEFAULT-GARDENER', 'DEFAULT-LIFECYCLE']);

const objectOf = (text: string) => parse(text) as PolicedObject;
const stateOf = (text: string | undefined, page: string) =>
  text === undefined ? [] : parseObjects(text, page).map((s) => s.object);

interface Judged {
  reply: ReviewReply['response'];
  webhook: 'validate' | 'mutate';
}

/** The webhook kube-apiserver calls first for this request: the mutating one, where it is registered. */
const firstWebhook = (kind: string, operation: Operation) =>
  kind !== 'Shoot' && operation !== 'DELETE' ? 'mutate' : 'validate';

async function judge(
  ex: Example,
  object: PolicedObject | undefined,
  state: PolicedObject[],
): Promise<Judged & { server: TestServer; validated: ReviewReply['response'] }> {
  const operation = (ex.attrs.operation ?? 'CREATE') as Operation;
  const now = Date.parse(ex.attrs.now ?? NOW_ISO);
  const server = await startServer({
    state,
    now,
    // The product defaults (loadConfig without a file), with the feature gate the example names.
    config: {
      featureGates: { VersionClassificationLifecycle: ex.attrs.gate === 'on' },
      defaulting: { lifecycle: { enabled: true } },
      ...(ex.attrs.deny ? { forecast: { deny: ex.attrs.deny.split(',') } } : {}),
    },
  });
  const old = ex.blocks.old === undefined ? undefined : objectOf(ex.blocks.old);
  const body =
    operation === 'DELETE'
      ? review({ operation, oldObject: old })
      : review({ operation, object, ...(old ? { oldObject: old } : {}) });
  const kind = (object ?? old)?.kind ?? '';
  const webhook = firstWebhook(kind, operation);
  const reply = (await server.post(`/${webhook}`, body)).json<ReviewReply>().response;
  // The validating webhook, which kube-apiserver calls after the mutating one, judges alike.
  const validated =
    webhook === 'validate' ? reply : (await server.post('/validate', body)).json<ReviewReply>().response;
  return { reply, webhook, server, validated };
}

const { pages, examples } = await docExamples();
const names = await webhookNames();

t.test('every rule ID has its own section and a documented example', async (t) => {
  const rules = pages.find((p) => p.page === 'docs/rules.md')!.text;
  for (const id of RULE_IDS) {
    t.match(rules, new RegExp(`^#{2,4} \`?${id}\`?\\s*$`, 'm'), `${id}: a heading of its own (its anchor)`);
    const mine = examples.filter((e) => e.rule === id && e.page === 'docs/rules.md');
    if (MUTATING.has(id)) {
      t.ok(
        mine.some((e) => e.blocks.sent !== undefined && e.blocks.stored !== undefined),
        `${id}: an object sent and the object stored`,
      );
    } else {
      t.ok(
        mine.some((e) => e.blocks.denied !== undefined && e.blocks.message !== undefined),
        `${id}: a denied example with its message`,
      );
      t.ok(
        mine.some((e) => e.blocks.fixed !== undefined || e.blocks['fixed-state'] !== undefined),
        `${id}: the fix of an example`,
      );
    }
  }
  for (const e of examples) t.ok((RULE_IDS as readonly string[]).includes(e.rule), `${e.page}: ${e.id} is a rule ID`);
});

for (const ex of examples.filter((e) => e.blocks.denied !== undefined)) {
  t.test(`${ex.page}: ${ex.id} is denied with the documented message, and its fix is allowed`, async (t) => {
    const state = stateOf(ex.blocks.state, ex.page);
    const object = objectOf(ex.blocks.denied!);
    const { reply, webhook, server, validated } = await judge(
      ex,
      (ex.attrs.operation ?? 'CREATE') === 'DELETE' ? undefined : object,
      state,
    );
    if ((ex.attrs.operation ?? 'CREATE') === 'DELETE')
      t.same(object, objectOf(ex.blocks.old ?? ''), 'a DELETE shows the object deleted, which is the stored one');
    t.teardown(server.close);
    t.equal(reply.allowed, false, 'denied');
    const shown = `admission webhook "${names[webhook]}" denied the request: ${reply.status?.message ?? ''}`;
    t.ok(shown.includes(`[${ex.rule}]`), `the denial names ${ex.rule}`);
    if (!t.equal(ex.blocks.message, shown, 'the documented message is the answer'))
      t.comment(`the webhook answers:\n\`\`\`text\n${shown}\n\`\`\``);
    t.same(
      [validated.allowed, validated.status?.message],
      [false, reply.status?.message],
      '/validate answers the same',
    );

    if (ex.blocks.fixed === undefined && ex.blocks['fixed-state'] === undefined) return;
    const fixedState = ex.blocks['fixed-state'] === undefined ? state : stateOf(ex.blocks['fixed-state'], ex.page);
    const fixedObject = ex.blocks.fixed === undefined ? object : objectOf(ex.blocks.fixed);
    const fixed = await judge(ex, (ex.attrs.operation ?? 'CREATE') === 'DELETE' ? undefined : fixedObject, fixedState);
    t.teardown(fixed.server.close);
    t.equal(
      fixed.reply.allowed,
      true,
      `the fix is allowed${fixed.reply.status?.message ? `; the webhook answers: ${fixed.reply.status.message}` : ''}`,
    );
    t.equal(fixed.validated.allowed, true, 'and /validate allows it too');
  });
}

for (const ex of examples.filter((e) => e.blocks.sent !== undefined)) {
  t.test(`${ex.page}: ${ex.id} stores what the page shows`, async (t) => {
    const sent = objectOf(ex.blocks.sent!);
    const { reply, server } = await judge(ex, sent, stateOf(ex.blocks.state, ex.page));
    t.teardown(server.close);
    t.equal(reply.allowed, true, reply.status?.message ?? 'allowed');
    const ops = reply.patch
      ? (JSON.parse(Buffer.from(reply.patch, 'base64').toString('utf8')) as PatchOperation[])
      : [];
    const stored = jsonpatch.applyPatch(structuredClone(sent), ops).newDocument;
    t.same(stored, objectOf(ex.blocks.stored ?? ''), 'the patched object is the one the page shows as stored');
  });
}
