// `explain --output html` through the built CLI: the page for the file's profiles, the window
// flags, and their usage errors (exit 2, one line). The page's content is tested in test/report/.
import { fileURLToPath } from 'node:url';
import t from '../helpers/parts.js';
import { attr, byClass, elements, hasClass, parsePage } from '../helpers/html-dom.js';
import { runCli } from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NOW = ['--now', '2026-09-01T00:00:00Z'];
const STATE = ['--state', 'test/fixtures/explain/profile.yaml', '--state', 'test/fixtures/explain/shoots.yaml'];

t.test('the page for every profile of the file, with counts when a state is given', async (t) => {
  const [withState, ncp, without, window] = await Promise.all([
    runCli(['explain', ...STATE, ...NOW, '--output', 'html', 'test/fixtures/explain/profile.yaml'], ROOT),
    runCli(['explain', ...STATE, ...NOW, '--output', 'html', 'test/fixtures/explain/ncp.yaml'], ROOT),
    runCli(['explain', ...NOW, '--output', 'html', 'test/fixtures/explain/profile.yaml'], ROOT),
    runCli(
      [
        'explain',
        ...STATE,
        ...NOW,
        '--output',
        'html',
        '--from',
        '-7d',
        '--to',
        '2026-12-31',
        'test/fixtures/explain/profile.yaml',
      ],
      ROOT,
    ),
  ]);
  for (const run of [withState, ncp, without, window])
    t.same([run.code, run.stderr], [0, ''], 'exit 0, nothing on stderr');

  const page = parsePage(withState.stdout);
  t.same(page.errors, []);
  const sections = byClass(page.document, 'profile');
  t.same(
    sections.map((s) => [attr(s, 'data-kind'), attr(s, 'data-name')]),
    [['CloudProfile', 'local']],
  );
  const row = elements(page.document, (e) => hasClass(e, 'row') && attr(e, 'data-version') === '1.29.8')[0]!;
  t.equal(attr(row, 'data-shoots'), '1', 'the Shoot count of the state (the deleting Shoot not counted)');
  t.same(
    elements(page.document, (e) => attr(e, 'data-no-state') !== undefined),
    [],
  );

  const merged = byClass(parsePage(ncp.stdout).document, 'profile')[0]!;
  t.same(
    [attr(merged, 'data-kind'), attr(merged, 'data-namespace'), attr(merged, 'data-name')],
    ['NamespacedCloudProfile', 'garden-dev', 'team'],
  );

  const bare = parsePage(without.stdout).document;
  t.equal(
    elements(bare, (e) => attr(e, 'data-no-state') !== undefined).length,
    1,
    'without --state: says there is no cluster state',
  );
  t.same(byClass(bare, 'count'), []);

  const chart = elements(parsePage(window.stdout).document, (e) => e.tagName === 'svg' && hasClass(e, 'chart'))[0]!;
  t.same(
    [attr(chart, 'data-from'), attr(chart, 'data-to')],
    ['2026-08-25T00:00:00Z', '2026-12-31T00:00:00Z'],
    '--from/--to set the window',
  );
});

t.test('window flags: strict, and --from only with --output html', async (t) => {
  const file = 'test/fixtures/explain/profile.yaml';
  const cases: Array<[string, string[], RegExp]> = [
    [
      '--from needs a unit',
      ['--output', 'html', '--from', '-90', file],
      /option '--from <when>' argument '-90' is invalid\. not a day offset/,
    ],
    [
      '--to must be a real date',
      ['--output', 'html', '--to', '2027-02-30', file],
      /'--to <when>' argument '2027-02-30' is invalid/,
    ],
    [
      '--to after --from',
      ['--output', 'html', '--from', '10d', '--to', '5d', file],
      /--from\/--to: the window must end at least one day after it starts/,
    ],
    ['--from only for html', ['--from', '-30d', file], /--from shapes the timeline page: use it with --output html/],
    ['--output choices', ['--output', 'svg', file], /Allowed choices are text, json, html/],
  ];
  const runs = await Promise.all(cases.map(([, args]) => runCli(['explain', ...NOW, ...args], ROOT)));
  cases.forEach(([name, , message], i) => {
    const got = runs[i]!;
    t.equal(got.code, 2, `${name}: exit code`);
    t.match(got.stderr, message, `${name}: message`);
    t.equal(got.stderr.trim().split('\n').length, 1, `${name}: one line`);
    t.equal(got.stdout, '', `${name}: nothing on stdout`);
  });
});
