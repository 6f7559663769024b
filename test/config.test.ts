import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ConfigError, defaultConfig, loadConfig, resolveConfig } from '../src/config.js';
import { RULE_IDS } from '../src/policy/rules/index.js';
import { parseDuration } from '../src/gardener/duration.js';

t.test('every key is optional and the defaults are the product recommendation', async (t) => {
  const c = defaultConfig();
  t.equal(
    c.featureGates.VersionClassificationLifecycle,
    false,
    "the lifecycle gate defaults to off, as Gardener's Alpha gate does",
  );
  for (const id of RULE_IDS) t.equal(c.rules[id].enabled, true, `${id} is on by default`);
  t.same(c.defaulting.lifecycle, {
    enabled: true,
    maintainedMinors: 3,
    expirationMaintained: '2880h',
    expirationUnmaintained: '720h',
    machineImageExpiration: '2880h',
    adoptExisting: false,
    adoptionNotice: '720h',
  });
  t.equal(c.server.port, 9443);
  t.equal(c.server.bodyLimitBytes, 7 * 1024 * 1024);
  t.equal(c.cluster.enabled, true);
});

t.test('every rule can be switched off, and the rest keep their defaults', async (t) => {
  const c = resolveConfig({ rules: { 'PAST-EXPIRATION': { enabled: false } } });
  t.equal(c.rules['PAST-EXPIRATION'].enabled, false);
  t.equal(c.rules['IN-USE'].enabled, true);
});

t.test('lifecycle adoption is opt-in, with a notice in Go duration syntax', async (t) => {
  const c = resolveConfig({ defaulting: { lifecycle: { adoptExisting: true, adoptionNotice: '1440h' } } });
  t.equal(c.defaulting.lifecycle.adoptExisting, true);
  t.equal(parseDuration(c.defaulting.lifecycle.adoptionNotice), 60 * 24 * 3_600_000);
  t.equal(c.defaulting.lifecycle.enabled, true, 'the other lifecycle keys keep their defaults');
  t.throws(() => resolveConfig({ defaulting: { lifecycle: { adoptionNotice: '30d' } } }), {
    message: /defaulting\.lifecycle\.adoptionNotice/,
  });
  t.throws(() => resolveConfig({ defaulting: { lifecycle: { adoptExisting: 'yes' } } }), {
    message: /defaulting\.lifecycle\.adoptExisting/,
  });
});

t.test('the gate is on only where the config says so', async (t) => {
  t.equal(
    resolveConfig({ featureGates: { VersionClassificationLifecycle: true } }).featureGates
      .VersionClassificationLifecycle,
    true,
  );
  t.equal(resolveConfig({ featureGates: {} }).featureGates.VersionClassificationLifecycle, false);
});

t.test('bad config is refused with the key named', async (t) => {
  t.throws(() => resolveConfig({ rules: { 'NO-SUCH-RULE': { enabled: false } } }), {
    name: 'ConfigError',
    message: /rules.*NO-SUCH-RULE/,
  });
  t.throws(() => resolveConfig({ defaulting: { lifecycle: { expirationMaintained: '120 days' } } }), {
    message: /defaulting\.lifecycle\.expirationMaintained/,
  });
  t.throws(() => resolveConfig({ server: { port: 'x' } }), { message: /server\.port/ });
  t.throws(() => resolveConfig('just text'), ConfigError);
});

t.test('an error names what it found, what is allowed, and the nearest key or value', async (t) => {
  const said = (raw: unknown) => {
    try {
      resolveConfig(raw, 'cfg.yaml');
    } catch (err) {
      return (err as Error).message;
    }
    return 'accepted';
  };
  t.equal(
    said({ featureGates: { VersionClassificationLifecyle: true } }),
    'cfg.yaml: featureGates: unknown key "VersionClassificationLifecyle" (did you mean "VersionClassificationLifecycle"?); allowed: VersionClassificationLifecycle',
  );
  t.equal(
    said({ forecast: { deny: ['forced'] } }),
    'cfg.yaml: forecast.deny[0]: "forced" is not allowed (did you mean "forced-soon"?); allowed: trap, no-target, forced-soon',
  );
  t.equal(
    said({ forecast: { deny: ['bogus'] } }),
    'cfg.yaml: forecast.deny[0]: "bogus" is not allowed; allowed: trap, no-target, forced-soon',
    'nothing close: no guess',
  );
  t.equal(
    said({ defaulting: { lifecycle: { expirationMaintained: '120d' } } }),
    'cfg.yaml: defaulting.lifecycle.expirationMaintained: "120d" is not a duration: write a number and a unit (h, m, s, ms, us or ns), as Go does, e.g. 2880h for 120 days (Go has no d)',
  );
  t.match(
    said({ featureGate: {} }),
    /^cfg\.yaml: \(top level\): unknown key "featureGate" \(did you mean "featureGates"\?\); allowed: featureGates, rules, defaulting, /,
  );
  t.match(
    said({ rules: { IN_USE: { enabled: false } } }),
    /rules: unknown key "IN_USE" \(did you mean "IN-USE"\?\); allowed: K8S-VERSIONS, /,
  );
  t.equal(
    said({ logLevel: 'warning' }),
    'cfg.yaml: logLevel: "warning" is not allowed (did you mean "warn"?); allowed: fatal, error, warn, info, debug, trace, silent',
  );
  t.equal(said({ forecast: { deny: ['trap', 'trap'] } }), 'cfg.yaml: forecast.deny: lists "trap" twice');
  t.equal(said({ server: { port: 'x' } }), 'cfg.yaml: server.port: must be integer, found "x"');
  t.equal(
    said({ warnings: { expiringWithinDays: -1 } }),
    'cfg.yaml: warnings.expiringWithinDays: must be >= 0, found -1',
  );
  t.equal(said('just text'), 'cfg.yaml: (top level): must be a mapping of keys, found "just text"');
  t.match(
    said({ server: { tls: { selfManaged: { secretName: 'Certs_1' } } } }),
    /server\.tls\.selfManaged\.secretName: "Certs_1" is not a Kubernetes name: lower-case letters/,
  );

  const page = await readFile(new URL('../docs/configuration.md', import.meta.url), 'utf8');
  const shown = /```text\nversion-policy: (cfg\.yaml: featureGates[^\n]*)\n```/.exec(page)?.[1];
  t.equal(
    shown,
    said({
      featureGates: { VersionClassificationLifecyle: true },
      forecast: { deny: ['forced'] },
      defaulting: { lifecycle: { expirationMaintained: '120d' } },
    }),
    'docs/configuration.md shows the message as it is',
  );
});

t.test('loads YAML from a file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'vp-config-'));
  const file = join(dir, 'config.yaml');
  await writeFile(file, 'featureGates:\n  VersionClassificationLifecycle: false\nserver:\n  port: 10443\n');
  const c = await loadConfig(file);
  t.equal(c.featureGates.VersionClassificationLifecycle, false);
  t.equal(c.server.port, 10443);
  await writeFile(file, 'server: [unclosed\n');
  await t.rejects(loadConfig(file), { message: /not valid YAML/ });
  await t.rejects(loadConfig(join(dir, 'missing.yaml')), { message: /cannot read/ });
});

t.test('Go-style durations', async (t) => {
  t.equal(parseDuration('2880h'), 2880 * 3_600_000);
  t.equal(parseDuration('1h30m'), 90 * 60_000);
  t.equal(parseDuration('90m'), 90 * 60_000);
  t.throws(() => parseDuration('3d'));
  t.throws(() => parseDuration(''));
});
