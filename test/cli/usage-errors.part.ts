// Usage errors of every command and of the top level, through the built CLI: exactly one line on stderr, exit 2,
// nothing on stdout. Commander's hints ("Did you mean …?") stay, joined onto that line. (check's
// usage and input errors are in check-input-errors.test.ts, more of explain's in explain.test.ts.)
import t from '../helpers/parts.js';
import { runCli } from '../helpers/run-cli.js';

const CASES: Array<[string, string[], RegExp]> = [
  [
    'top level: an unknown command, with the nearest one suggested',
    ['chek'],
    /unknown command 'chek' \(Did you mean check\?\)/,
  ],
  ['top level: no command', [], /missing command: one of serve, check, explain/],
  ['top level: help for an unknown command', ['help', 'chek'], /unknown command 'chek'/],
  [
    'serve: a misspelt option, with the nearest one suggested',
    ['serve', '--confg', 'x.yaml'],
    /unknown option '--confg' \(Did you mean --config\?\)/,
  ],
  [
    'explain: a misspelt option',
    ['explain', '--nw', '2026-09-01T00:00:00Z', 'x.yaml'],
    /unknown option '--nw' \(Did you mean --now\?\)/,
  ],
  ['explain: two FILEs', ['explain', 'x.yaml', 'y.yaml'], /too many arguments for 'explain'/],
  [
    'explain: a --now that is not RFC 3339',
    ['explain', '--now', '2026-09-01', 'x.yaml'],
    /--now.*not an RFC 3339 timestamp/,
  ],
];

t.test('usage errors: one line on stderr, exit 2', async (t) => {
  // Each run is a cold node start; run them side by side.
  const runs = await Promise.all(CASES.map(([, args]) => runCli(args)));
  CASES.forEach(([what, , message], i) => {
    const run = runs[i]!;
    t.equal(run.code, 2, `${what}: exit 2`);
    t.match(run.stderr, /^[^\n]+\n$/, `${what}: exactly one line on stderr`);
    t.match(run.stderr, message, `${what}: says what is wrong`);
    t.equal(run.stdout, '', `${what}: nothing on stdout`);
  });
});

t.test('asking for help is not an error', async (t) => {
  const runs = await Promise.all([['--help'], ['help', 'explain']].map((args) => runCli(args)));
  for (const run of runs) {
    t.equal(run.code, 0);
    t.match(run.stdout, /^Usage: version-policy/);
    t.equal(run.stderr, '');
  }
});
