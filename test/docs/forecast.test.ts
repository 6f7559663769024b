// docs/forecast.md: every `$ version-policy forecast …` transcript is run verbatim (main()
// in-process) and must print what the page shows (an ICS file's CRLF shown as line ends), and
// every failure kind and trap the code can report is explained on the page.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { FAILURE_KINDS } from '../../src/gardener/forecast/index.js';
import { runCli } from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const page = await readFile(new URL('../../docs/forecast.md', import.meta.url), 'utf8');

const transcripts = [...page.matchAll(/^```console\n\$ (version-policy forecast [^\n]*)\n([\s\S]*?)^```$/gm)].map(
  (m) => ({ command: m[1] ?? '', shown: m[2] ?? '' }),
);

t.test('the page shows text, --proposed, ics, a filtered gate and json runs', async (t) => {
  const flags = transcripts.map((x) => x.command);
  t.equal(transcripts.length, 5, flags.join('\n'));
  t.ok(flags.some((c) => c.includes('--proposed') && c.includes('--output ics')));
  t.ok(flags.some((c) => c.includes('--fail-on') && c.includes('--namespace')));
  t.ok(flags.some((c) => c.includes('--output json')));
});

for (const { command, shown } of transcripts) {
  t.test(command, async (t) => {
    const run = await runCli(command.split(/\s+/).slice(1), ROOT);
    if (command.includes('--fail-on')) {
      t.equal(run.code, 1, 'a condition met: exit 1');
      // The page quotes the stderr line in its prose.
      t.match(page, `\`${run.stderr.trim()}\``, 'the page quotes what stderr says');
    } else t.equal(run.code, 0, run.stderr);
    t.equal(run.stdout.replace(/\r\n/g, '\n'), shown, 'the page shows what the command prints');
  });
}

t.test('every failure kind and both traps are explained', async (t) => {
  for (const kind of FAILURE_KINDS) t.match(page, `\`${kind}\``, kind);
  for (const issue of ['gardener/gardener#13647', 'gardener/gardener#13703']) t.match(page, `TRAP ${issue}`, issue);
});
