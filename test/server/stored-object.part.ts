// The stored object (oldObject) of a review is checked whole, though the rules read only part of it
// (src/admission/stored.ts): the two shapes the fixed-seed fuzz found allowed while evaluate(), on
// the whole object, refuses them (issue 34), on /validate and /mutate, DELETE and UPDATE, in a
// small body (read on the event loop) and a big one (read in the body worker). Each well-formed
// twin is allowed, so the refusal is the malformed field's doing.
import t from '../helpers/parts.js';
import { INCREMENTAL_BODY_BYTES } from '../../src/admission/body.js';
import type { CloudProfile } from '../../src/api/types.js';
import { cloudProfile } from '../helpers/objects.js';
import { review, startServer, type ReviewReply, type TestServer } from '../helpers/server.js';

let s: TestServer;
t.before(async () => {
  s = await startServer();
});
t.teardown(() => s.close());

/** A profile no Shoot uses; `big` pads it past the body size read on the event loop. */
function profile(big: boolean): CloudProfile {
  const p = cloudProfile({ name: 'unused', machineTypes: [{ name: 'm5.large', architecture: 'amd64' }] });
  if (big) p.metadata.annotations = { padding: 'x'.repeat(INCREMENTAL_BODY_BYTES) };
  return p;
}

const SHAPES: Record<string, { field: RegExp; make: (p: CloudProfile, big: boolean) => unknown }> = {
  'machineTypes[0].architecture null (fuzz case 158)': {
    field: /\[SCHEMA\].*oldObject\.spec\.machineTypes\[0\]\.architecture: must be string/,
    make: (p) => {
      const bad = structuredClone(p) as unknown as { spec: { machineTypes: Array<{ architecture: unknown }> } };
      bad.spec.machineTypes[0]!.architecture = null;
      return bad;
    },
  },
  'spec a list of copies of itself (fuzz case 102)': {
    field: /\[SCHEMA\].*oldObject\.spec: must be object/,
    make: (p, big) => ({ ...p, spec: Array.from({ length: big ? 2_000 : 10 }, () => p.spec) }),
  },
};

for (const [shape, { field, make }] of Object.entries(SHAPES)) {
  for (const big of [false, true]) {
    t.test(`${shape}, ${big ? 'big body (body worker)' : 'small body (event loop)'}`, async (t) => {
      for (const operation of ['DELETE', 'UPDATE'] as const) {
        for (const path of ['/validate', '/mutate']) {
          const good = profile(big);
          const object = operation === 'UPDATE' ? good : undefined;
          const send = async (oldObject: unknown, uid: string) => {
            const body = review({ operation, ...(object ? { object } : {}), oldObject, uid });
            const text = JSON.stringify(body);
            t.equal(text.length > INCREMENTAL_BODY_BYTES, big, `${uid}: the body is ${text.length} bytes`);
            const res = await s.post(path, body);
            t.equal(res.status, 200, `${uid}: answered in a review`);
            return res.json<ReviewReply>().response;
          };
          const what = `${operation} ${path}`;
          const refused = await send(make(good, big), `bad-${operation}-${path.slice(1)}`);
          t.equal(refused.allowed, false, `${what}: refused`);
          t.equal(refused.status?.code, 403, `${what}: forbidden`);
          t.match(refused.status?.message, field, `${what}: naming the field`);
          const allowed = await send(good, `good-${operation}-${path.slice(1)}`);
          t.equal(allowed.allowed, true, `${what}: its well-formed twin is allowed`);
        }
      }
    });
  }
}
