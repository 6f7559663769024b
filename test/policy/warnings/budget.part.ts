// The warning budget: at most 10 warnings and 4 KiB per review, each at most 256 characters;
// grouped when there are more, counted in a closing line when even the groups do not fit. Judged
// on the budget function itself and on whole reviews of realistic and 100× profiles.
import t, { type Test } from '../../helpers/parts.js';
import type { Decision } from '../../../src/policy/decision.js';
import type { CloudProfile, PolicedObject } from '../../../src/api/types.js';
import type { Warning, WarningKind } from '../../../src/policy/warning.js';
import { warningOf } from '../../../src/policy/warning.js';
import {
  budgetWarnings,
  MAX_WARNING_BYTES,
  MAX_WARNING_LENGTH,
  MAX_WARNINGS,
} from '../../../src/policy/warnings/budget.js';
import { cloudProfile, decide, image, shoot } from '../../helpers/objects.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** A kind that counts how often it is asked for text. */
function countingKind(): WarningKind<string> & { calls: number } {
  const kind = {
    calls: 0,
    one(item: string) {
      kind.calls++;
      return `version ${item} is deprecated`;
    },
    many(items: readonly string[]) {
      kind.calls++;
      return `${items.length} versions are deprecated (${items[0]}…${items.at(-1)})`;
    },
  };
  return kind;
}

function withinBudget(t: Test, said: readonly string[], what: string): void {
  t.ok(said.length <= MAX_WARNINGS, `${what}: ${said.length} warnings, at most ${MAX_WARNINGS}`);
  const total = said.reduce((n, w) => n + bytes(w), 0);
  t.ok(total <= MAX_WARNING_BYTES, `${what}: ${total} bytes, at most ${MAX_WARNING_BYTES}`);
  const longest = Math.max(0, ...said.map((w) => w.length));
  t.ok(longest <= MAX_WARNING_LENGTH, `${what}: longest ${longest} characters, at most ${MAX_WARNING_LENGTH}`);
}

t.test('up to ten warnings are said in full, in order', async (t) => {
  const kind = countingKind();
  const ws = Array.from({ length: 10 }, (_, i) => warningOf(kind, 'same-group', `1.30.${i}`));
  const said = budgetWarnings(ws);
  t.same(
    said,
    ws.map((_, i) => `version 1.30.${i} is deprecated`),
  );
});

t.test('past ten, a group is said as one warning', async (t) => {
  const kind = countingKind();
  const ws = [
    ...Array.from({ length: 14 }, (_, i) => warningOf(kind, 'a', `1.25.${i}`)),
    warningOf(kind, 'b', '1.31.0'),
  ];
  t.same(budgetWarnings(ws), ['14 versions are deprecated (1.25.0…1.25.13)', 'version 1.31.0 is deprecated']);
  t.equal(kind.calls, 2, 'text is built only for what is said');
});

t.test('more groups than fit: nine are said and the rest counted in a closing line', async (t) => {
  const kind = countingKind();
  const ws: Warning[] = [];
  for (let g = 0; g < 30; g++) for (let i = 0; i < 2; i++) ws.push(warningOf(kind, `g${g}`, `1.${g}.${i}`));
  const said = budgetWarnings(ws);
  t.equal(said.length, MAX_WARNINGS);
  t.equal(said.at(-1), 'and 42 more warnings (60 in total); see version-policy explain or check --output json');
  t.equal(kind.calls, 9, 'the unsaid groups are never put into words');
});

t.test('a last group that fits is said instead of a closing line', async (t) => {
  const kind = countingKind();
  const ws: Warning[] = [];
  for (let g = 0; g < 10; g++) for (let i = 0; i < 2; i++) ws.push(warningOf(kind, `g${g}`, `1.${g}.${i}`));
  const said = budgetWarnings(ws);
  t.equal(said.length, 10);
  t.notOk(said.some((w) => w.startsWith('and ')));
});

t.test('a warning over 256 characters is cut', async (t) => {
  const long: WarningKind<string> = { one: (s) => s, many: (ss) => ss.join(' ') };
  const said = budgetWarnings([warningOf(long, 'x', 'y'.repeat(1000))]);
  t.equal(said[0]!.length, MAX_WARNING_LENGTH);
  t.ok(said[0]!.endsWith('…'));
});

t.test('the 4 KiB bound holds for text that is not ASCII', async (t) => {
  const wide: WarningKind<string> = { one: (s) => s, many: (ss) => ss[0]! };
  const ws = Array.from({ length: 10 }, (_, i) => warningOf(wide, `k${i}`, `${i}${'€'.repeat(250)}`));
  const said = budgetWarnings(ws);
  withinBudget(t, said, 'ten warnings of 3-byte characters');
  t.match(said.at(-1)!, /^and \d+ more warnings \(10 in total\)/);
});

// --- whole reviews --------------------------------------------------------------------------

/** A profile as landscapes hold them, every version plain: `scale`× 60 Kubernetes versions and 8 images × 40 versions. */
function realistic(scale: number): CloudProfile {
  const kubernetes: string[] = [];
  for (let minor = 0; minor < 10 * scale; minor++)
    for (let patch = 0; patch < 6; patch++) kubernetes.push(`1.${25 + minor}.${patch}`);
  const images = Array.from({ length: 8 }, (_, i) => {
    const versions: string[] = [];
    for (let minor = 0; minor < 10 * scale; minor++)
      for (let patch = 0; patch < 4; patch++) versions.push(`${1000 + minor}.${patch}.0`);
    return image(`image-${i}`, versions);
  });
  return cloudProfile({ name: 'profile', kubernetes, images });
}

/** Shoots on some of the versions, so the warnings that count Shoots speak too. */
function shootsOn(profile: CloudProfile, every: number): PolicedObject[] {
  return profile.spec.kubernetes.versions
    .filter((_, i) => i % every === 0)
    .map((v, i) =>
      shoot({
        name: `s${i}`,
        version: v.version,
        workers: [{ name: 'pool', image: ['image-0', profile.spec.machineImages[0]!.versions[i % 40]!.version] }],
      }),
    );
}

const reviews: Array<[string, (p: CloudProfile, state: PolicedObject[]) => Decision]> = [
  [
    'CREATE, product defaults (gate off)',
    (p) => decide({ operation: 'CREATE', object: structuredClone(p), lifecycleDefaulting: true, lifecycleGate: false }),
  ],
  [
    'CREATE, gate on',
    (p) => decide({ operation: 'CREATE', object: structuredClone(p), lifecycleDefaulting: true, lifecycleGate: true }),
  ],
  [
    'UPDATE adopting every version, with Shoots',
    (p, state) =>
      decide({
        operation: 'UPDATE',
        object: structuredClone(p),
        oldObject: p,
        state,
        lifecycleDefaulting: true,
        lifecycleGate: false,
        config: { defaulting: { lifecycle: { adoptExisting: true, expirationUnmaintained: '240h' } } },
      }),
  ],
  [
    'UPDATE with defaulting off, with Shoots',
    (p, state) =>
      decide({ operation: 'UPDATE', object: structuredClone(p), oldObject: p, state, lifecycleGate: false }),
  ],
];

// Every review at the real size; at 100× the two that say the most (each costs about a second here).
for (const scale of [1, 100]) {
  const profile = realistic(scale);
  const state = shootsOn(profile, 3);
  for (const [name, run] of scale === 1 ? reviews : [reviews[0]!, reviews[2]!]) {
    t.test(
      `${name}: ${profile.spec.kubernetes.versions.length} Kubernetes versions, 8 images × ${profile.spec.machineImages[0]!.versions.length}`,
      async (t) => {
        const d = run(profile, state);
        withinBudget(t, d.warnings, name);
        if (name.startsWith('CREATE') || name.startsWith('UPDATE adopting')) {
          t.ok(d.allWarnings.length >= 380 * scale, `the full list holds every warning (${d.allWarnings.length})`);
          t.ok(d.allWarnings.length > d.warnings.length);
        }
        t.same(d.violations, [], 'the defaulted profile is valid');
      },
    );
  }
}

t.test('the realistic CREATE reads as groups per list, outcome and expiry day', async (t) => {
  const d = decide({ operation: 'CREATE', object: realistic(1), lifecycleDefaulting: true, lifecycleGate: false });
  t.ok(
    d.warnings.includes(
      '42 Kubernetes versions get deprecated (1.25.0…1.31.5), expiring 2026-10-01; see version-policy explain',
    ),
    d.warnings.join('\n'),
  );
  t.ok(
    d.warnings.includes(
      '15 Kubernetes versions get deprecated (1.32.0…1.34.4), expiring 2026-12-30; see version-policy explain',
    ),
  );
  t.ok(d.warnings.includes('3 Kubernetes versions get supported (1.32.5…1.34.5); see version-policy explain'));
  // Image versions like 1592.1.0 are each the only version of their minor: all supported.
  t.ok(
    d.warnings.includes(
      '40 versions of machine image image-0 get supported (1000.0.0…1009.3.0); see version-policy explain',
    ),
  );
  t.match(
    d.warnings.at(-1)!,
    /^and \d+ more warnings \(\d+ in total\); see version-policy explain or check --output json$/,
  );
});
