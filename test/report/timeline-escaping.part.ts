// Everything on the page that comes from an object (names, versions, classifications, Shoot
// names in warnings and updates) is text, never markup: hostile strings are rendered, then
// the page is parsed as a browser would, and no element or attribute they carry may exist.
import t from '../helpers/parts.js';
import { staticState } from '../../src/cluster/static-state.js';
import type { CloudProfile, NamespacedCloudProfile, Shoot } from '../../src/api/types.js';
import { renderProfilesPage } from '../../src/report/timeline-page.js';
import { resolveWindow } from '../../src/report/window.js';
import { attr, byClass, elements, hasClass, one, parsePage, textOf } from '../helpers/html-dom.js';
import { cloudProfile, image, namespacedProfile, NOW, shoot } from '../helpers/objects.js';

const HOSTILE = {
  profile: `"><script>alert('profile')</script>`,
  image: `</svg><img src=x onerror="alert('image')">`,
  version: `1.0.0"><foreignObject><iframe src="javascript:alert('version')"></iframe></foreignObject>`,
  title: `1.1.0</title></g></svg><script>alert('title')</script>`,
  stage: `<b onmouseover="alert('stage')">bold</b>`,
  shoot: `x</td><style>*{display:none}</style><a href="//evil">`,
  namespace: `ns<!--`,
  control: `1.2.0\u0000\u0007`,
};

// Not valid objects (parse.ts would refuse most of them): the renderer must be safe on its own.
const profile: CloudProfile = cloudProfile({
  name: HOSTILE.profile,
  kubernetes: [
    {
      version: '1.31.0',
      lifecycle: [
        { classification: 'supported' },
        { classification: HOSTILE.stage, startTime: '2026-10-01T00:00:00Z' },
      ],
    },
    { version: '1.30.0', classification: 'deprecated', expirationDate: '2026-10-01T00:00:00Z' },
    HOSTILE.version,
    HOSTILE.title,
    HOSTILE.control,
  ],
  images: [
    image(
      HOSTILE.image,
      [{ version: '1.0.0', classification: 'deprecated', expirationDate: '2026-10-01T00:00:00Z' }],
      'patch',
    ),
  ],
});
const ncp: NamespacedCloudProfile = namespacedProfile({
  name: HOSTILE.profile,
  namespace: HOSTILE.namespace,
  parent: HOSTILE.profile,
});
const users: Shoot[] = [
  shoot({
    name: HOSTILE.shoot,
    namespace: HOSTILE.namespace,
    profile: HOSTILE.profile,
    version: '1.30.0',
    workers: [{ name: HOSTILE.shoot, image: [HOSTILE.image, '1.0.0'] }],
  }),
  shoot({
    name: 'on-ncp',
    namespace: HOSTILE.namespace,
    profile: { kind: 'NamespacedCloudProfile', name: HOSTILE.profile },
    version: '1.31.0',
    workers: [],
  }),
];
const html = renderProfilesPage([profile, ncp], staticState([profile, ncp, ...users]), NOW, resolveWindow(NOW));
const { document, errors } = parsePage(html);

t.test('hostile strings add no element, attribute or parse error', async (t) => {
  t.same(errors, [], 'the page still parses cleanly');
  const allowed = new Set([
    'html',
    'head',
    'meta',
    'title',
    'style',
    'body',
    'main',
    'section',
    'header',
    'h1',
    'h2',
    'p',
    'time',
    'ul',
    'li',
    'span',
    'code',
    'q',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'footer',
    'svg',
    'defs',
    'pattern',
    'rect',
    'circle',
    'g',
    'line',
    'path',
    'text',
    'details',
    'summary',
    'ol',
    'strong',
    'a',
    'br',
  ]);
  const tags = new Set(elements(document).map((e) => e.tagName));
  t.same(
    [...tags].filter((tag) => !allowed.has(tag)),
    [],
    'only the elements the renderer writes',
  );
  t.same(
    elements(document, (e) =>
      e.attrs.some(
        (a) =>
          a.name.startsWith('on') ||
          a.name === 'src' ||
          (a.name === 'href' && !/^#p\d+-(chain-\d+|forecast)$/.test(a.value)),
      ),
    ).map((e) => e.tagName),
    [],
    'no event handler, src, or href but to a chain on the page',
  );
  t.ok(elements(document, (e) => e.tagName === 'a').length > 0, 'the marks link to the chains');
  t.equal(byClass(document, 'profile').length, 2, 'both profiles, no more');
  t.equal(elements(document, (e) => e.tagName === 'style').length, 1, 'the one stylesheet');
});

t.test('they are shown as the text they are', async (t) => {
  const headings = elements(document, (e) => e.tagName === 'h1').map(textOf);
  t.same(headings, [
    `CloudProfile "${HOSTILE.profile}"`,
    `NamespacedCloudProfile '${HOSTILE.namespace}/${HOSTILE.profile}' (parent CloudProfile "${HOSTILE.profile}")`,
  ]);
  const versions = byClass(document, 'row').map((r) => attr(r, 'data-version'));
  for (const v of [HOSTILE.version, HOSTILE.title])
    t.ok(versions.includes(v), `row for ${JSON.stringify(v)}, attribute intact`);
  t.ok(versions.includes('1.2.0\ufffd\ufffd'), 'control characters become U+FFFD');
  const stage = one(
    byClass(document, 'profile')[0]!,
    (e) => hasClass(e, 'segment') && attr(e, 'data-stage') === HOSTILE.stage,
    'the unknown stage',
  );
  t.match(textOf(stage), HOSTILE.stage.slice(0, 20), 'an unknown classification is drawn under its own name');
  t.ok(
    byClass(document, 'update').some((r) => attr(r, 'data-shoot') === `${HOSTILE.namespace}/${HOSTILE.shoot}`),
    'the Shoot name in the updates by date',
  );
  t.ok(
    byClass(document, 'users').some((u) => textOf(u).includes(`${HOSTILE.namespace}/${HOSTILE.shoot}`)),
    'and named on its versions, under the chart',
  );
  t.match(textOf(one(document, (e) => hasClass(e, 'warnings'), 'warnings')), HOSTILE.shoot, 'and in the warnings');
  t.ok(
    byClass(document, 'chain').some((d) => attr(d, 'data-shoot') === `${HOSTILE.namespace}/${HOSTILE.shoot}`),
    'and in the forecast chains',
  );
  t.match(
    textOf(one(document, (e) => hasClass(e, 'notes'), 'notes')),
    `${HOSTILE.namespace}/${HOSTILE.profile}`,
    'and the NamespacedCloudProfile in the notes',
  );
  t.ok(
    elements(document, (e) => e.tagName === 'h2').some((h) => textOf(h).includes(HOSTILE.image)),
    'the image name in its heading',
  );
});

t.test('long strings are cut, so the page stays bounded', async (t) => {
  const long = 'x'.repeat(100_000);
  const p = cloudProfile({
    name: long,
    kubernetes: [`1.31.0-${long}`, { version: '1.30.0', lifecycle: [{ classification: long }] }],
    images: [image(long, [`1.0.0-${long}`])],
  });
  const out = renderProfilesPage([p], staticState([p]), NOW, resolveWindow(NOW));
  t.ok(out.length < 40_000, `${out.length} characters for 400 kB of names`);
  t.same(parsePage(out).errors, []);
});
