// The config file: one JSON Schema (ajv, with defaults), shared by `serve`, `check`, `explain`
// and the Helm chart's tests. Every key is optional.
import { readFile } from 'node:fs/promises';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { DURATION_PATTERN } from './gardener/duration.js';
import { FORECAST_CONDITIONS } from './gardener/forecast/profile-change.js';
import type { PolicyConfig } from './policy/policy-config.js';
import { RULE_IDS } from './policy/rules/index.js';
import { didYouMean } from './util/nearest.js';

/** server.tls.selfManaged: the server's own CA, kept in a Secret (src/server/tls/self-managed-source.ts). */
export interface SelfManagedConfig {
  enabled: boolean;
  /** '' = the namespace of the pod's service account. */
  namespace: string;
  secretName: string;
  /** The Service kube-apiserver calls; the serving certificate covers its in-cluster DNS names. */
  serviceName: string;
  /** '' = none of that kind. */
  validatingWebhookConfiguration: string;
  mutatingWebhookConfiguration: string;
  caValidity: string;
  caRenewBefore: string;
  servingValidity: string;
  servingRenewBefore: string;
  propagationDelay: string;
  overlap: string;
}

/** The config file: what the policy reads (policy/policy-config.ts), and the server's settings. */
export interface Config extends PolicyConfig {
  server: {
    host: string;
    port: number;
    tls: { certFile: string; keyFile: string; clientCAFile: string; selfManaged: SelfManagedConfig };
    /** Two objects at etcd's 1.5 MiB request limit, plus the AdmissionReview envelope, fit in 7 MiB. */
    bodyLimitBytes: number;
    /** Plain-HTTP port for /healthz, /readyz and /metrics; 0 = off. */
    probePort: number;
    /** After SIGTERM: unready but still serving this long, so endpoints and kube-proxy drop the pod first. */
    shutdownDelaySeconds: number;
    shutdownGraceSeconds: number;
    certReloadIntervalSeconds: number;
    /**
     * Connections open at once, on each port (webhook and probes); at it a new connection takes
     * the place of an unused or long-idle one, or is closed at once. kube-apiserver keeps a few (25
     * idle per host, plus one per concurrent call); an idle TLS connection costs about 45 KiB, so
     * the default 1000 bounds that at about 45 MiB.
     */
    maxConnections: number;
    /**
     * At the cap, a connection that has been answered is closed for a new one only once idle this
     * long: one its client used more recently is likely to carry its next request any moment.
     * Default 10.
     */
    evictIdleAfterSeconds: number;
    /**
     * A request body must arrive at this average rate, after `bodyGraceSeconds`, or the connection
     * is closed. Default 65536: a quarter of what the largest body (7 MiB) needs to beat the
     * request timeout (30 s).
     */
    minBodyBytesPerSecond: number;
    /** The time a body gets before the minimum rate applies. Default 5. */
    bodyGraceSeconds: number;
    /** A TLS handshake not finished within this is dropped (Node's default is 120 s). Default 5. */
    tlsHandshakeTimeoutSeconds: number;
    /**
     * A request whose headers have not all arrived within this of its first byte, or of the
     * connection opening, is answered 408 and closed. kube-apiserver sends them at once. Default 10.
     */
    headersTimeoutSeconds: number;
    /**
     * A request not fully received (headers and body) within this is answered 408 and closed.
     * Default 30: kube-apiserver gives up on a webhook after at most 30 s (timeoutSeconds).
     */
    requestTimeoutSeconds: number;
    /**
     * An idle kept-alive connection is closed after this. Default 120: longer than the 90 s after
     * which kube-apiserver's client (Go's IdleConnTimeout) drops idle connections itself, so the
     * client always closes first and never sends a review on a connection we are closing.
     */
    keepAliveTimeoutSeconds: number;
    /**
     * How often the header and request timeouts and the body rate are checked: a slow client is
     * reaped within its bound plus this. Default 1 (Node's default is 30).
     */
    connectionCheckIntervalSeconds: number;
    /**
     * A review's maintenance forecast runs in a worker thread; one not back within this is judged
     * without it ("cannot know": a warning, or a denial under forecast.deny). Default 3: the chart's
     * webhook timeoutSeconds is 5, and the rest of the review must fit in what is left.
     */
    forecastTimeoutSeconds: number;
    /** GET /profiles: the timeline pages, read-only, on the probe port (else the HTTPS port). */
    ui: { enabled: boolean };
  };
  cluster: {
    /** Informers on the API server; off needs `serve --state` or `--without-cluster-state`. */
    enabled: boolean;
    kubeconfig: string;
    /** Oldest the informer caches may be before the state counts as not synced (see the schema). */
    maxStaleSeconds: number;
  };
  /** Policy reports of what is stored (docs/reports.md): off unless the operator turns them on. */
  reports: ReportsConfig;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** The most log bytes `serve` holds for stdout; past it lines are dropped and counted. */
  logBufferBytes: number;
}

/** reports: the audit of what is stored, written as OpenReports by the holder of a Lease. */
export interface ReportsConfig {
  enabled: boolean;
  /** How often the audit runs and the reports are written. */
  intervalSeconds: number;
  /** Forced updates whose window starts within this many days are reported. */
  forcedWithinDays: number;
  /** Predicted failures and traps within this many days are reported. */
  horizonDays: number;
  maxResultsPerReport: number;
  lease: { name: string; namespace: string; durationSeconds: number };
}

const duration = { type: 'string', pattern: DURATION_PATTERN } as const;
const k8sName = { type: 'string', pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$', maxLength: 253 } as const;
const k8sNameOrEmpty = { type: 'string', pattern: '^([a-z0-9]([-a-z0-9.]*[a-z0-9])?)?$', maxLength: 253 } as const;

// The durations' derivations are beside their use, in src/server/tls/self-managed-options.ts.
const selfManagedSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    enabled: { type: 'boolean', default: false },
    namespace: { ...k8sNameOrEmpty, default: '' },
    secretName: { ...k8sName, default: 'version-policy-certs' },
    serviceName: { ...k8sName, default: 'version-policy' },
    validatingWebhookConfiguration: { ...k8sNameOrEmpty, default: 'version-policy' },
    mutatingWebhookConfiguration: { ...k8sNameOrEmpty, default: 'version-policy' },
    caValidity: { ...duration, default: '8760h' },
    caRenewBefore: { ...duration, default: '2160h' },
    servingValidity: { ...duration, default: '2160h' },
    servingRenewBefore: { ...duration, default: '720h' },
    propagationDelay: { ...duration, default: '60s' },
    overlap: { ...duration, default: '24h' },
  },
} as const;

export const configSchema = {
  $id: 'https://gardener-version-policy/config.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    featureGates: {
      type: 'object',
      additionalProperties: false,
      default: {},
      // Gardener's gate is Alpha and off by default: a lifecycle written with it off is refused by
      // a default gardener-apiserver, so the webhook only writes lifecycles where the operator says so.
      properties: { VersionClassificationLifecycle: { type: 'boolean', default: false } },
    },
    rules: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: Object.fromEntries(
        RULE_IDS.map((id) => [
          id,
          {
            type: 'object',
            additionalProperties: false,
            default: {},
            properties: { enabled: { type: 'boolean', default: true } },
          },
        ]),
      ),
    },
    defaulting: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        gardenerDefaults: { type: 'boolean', default: true },
        lifecycle: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            enabled: { type: 'boolean', default: true },
            maintainedMinors: { type: 'integer', minimum: 1, default: 3 },
            expirationMaintained: { ...duration, default: '2880h' },
            expirationUnmaintained: { ...duration, default: '720h' },
            machineImageExpiration: { ...duration, default: '2880h' },
            adoptExisting: { type: 'boolean', default: false },
            adoptionNotice: { ...duration, default: '720h' },
          },
        },
      },
    },
    warnings: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { expiringWithinDays: { type: 'integer', minimum: 0, default: 30 } },
    },
    forecast: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        // Do no harm: by default the forecast only warns; an operator lists the conditions to deny.
        warn: { type: 'boolean', default: true },
        deny: { type: 'array', items: { enum: [...FORECAST_CONDITIONS] }, uniqueItems: true, default: [] },
        horizonDays: { type: 'integer', minimum: 1, maximum: 730, default: 180 },
        soonDays: { type: 'integer', minimum: 1, maximum: 90, default: 7 },
      },
    },
    server: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'integer', minimum: 0, maximum: 65535, default: 9443 },
        tls: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            certFile: { type: 'string', default: '' },
            keyFile: { type: 'string', default: '' },
            clientCAFile: { type: 'string', default: '' },
            selfManaged: selfManagedSchema,
          },
        },
        bodyLimitBytes: { type: 'integer', minimum: 1024, default: 7340032 },
        // /metrics and the probes on plain HTTP, off the webhook port by default: /metrics there would
        // be unauthenticated unless clientCAFile is set. 0: no probe port, all on the webhook port.
        probePort: { type: 'integer', minimum: 0, maximum: 65535, default: 8080 },
        // 0 outside Kubernetes, where nothing routes to the process through endpoints; the chart sets it.
        shutdownDelaySeconds: {
          type: 'number',
          minimum: 0,
          default: 0,
          description:
            'After SIGTERM: unready, but still answering this long while endpoints and kube-proxy drop the pod.',
        },
        shutdownGraceSeconds: {
          type: 'number',
          minimum: 0,
          default: 25,
          description: 'Then: no new connections; requests in flight get this long.',
        },
        certReloadIntervalSeconds: { type: 'number', exclusiveMinimum: 0, default: 10 },
        maxConnections: { type: 'integer', minimum: 1, default: 1000 },
        evictIdleAfterSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 3600, default: 10 },
        minBodyBytesPerSecond: { type: 'integer', minimum: 1, default: 65536 },
        bodyGraceSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 300, default: 5 },
        tlsHandshakeTimeoutSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 120, default: 5 },
        headersTimeoutSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 300, default: 10 },
        requestTimeoutSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 300, default: 30 },
        keepAliveTimeoutSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 3600, default: 120 },
        connectionCheckIntervalSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 30, default: 1 },
        forecastTimeoutSeconds: { type: 'number', exclusiveMinimum: 0, maximum: 25, default: 3 },
        ui: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: { enabled: { type: 'boolean', default: false } },
        },
      },
    },
    cluster: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        enabled: { type: 'boolean', default: true },
        kubeconfig: { type: 'string', default: '' },
        // How old (since last known current) a cache of Shoots or profiles may be before the
        // webhook stops judging against it: requests that need the state are denied as "not
        // ready" and /readyz answers 503 until the cache is current again. 120 s because in
        // normal operation a cache is never more than about 30 s old (a watch silent for a
        // quarter of this bound is reopened, which proves it current; kube-apiserver also sends
        // bookmarks about every 60 s), a rolling restart of the API server takes 10-30 s plus up
        // to 10 s of reconnect backoff, and a relist of 100,000 Shoots takes tens of seconds on
        // a busy API server: 120 s rides out all of these without flapping readiness on every
        // replica (which, with failurePolicy Fail, blocks every covered write), yet a cache that
        // stopped following the cluster is noticed within two minutes. Below 10 s the normal
        // reconnect backoff alone would flap readiness.
        maxStaleSeconds: { type: 'number', minimum: 10, default: 120 },
      },
    },
    reports: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        // Nothing is written to the cluster unless the operator asks for it.
        enabled: { type: 'boolean', default: false },
        // An audit of 10,000 Shoots costs about a second of CPU (bench/RESULTS.md); findings move by days.
        intervalSeconds: { type: 'integer', minimum: 60, maximum: 86400, default: 600 },
        forcedWithinDays: { type: 'integer', minimum: 0, maximum: 365, default: 14 },
        horizonDays: { type: 'integer', minimum: 0, maximum: 730, default: 90 },
        // 500 results of at most ~1.5 kB stay far below etcd's 1.5 MB object limit.
        maxResultsPerReport: { type: 'integer', minimum: 1, maximum: 1000, default: 500 },
        lease: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            name: { ...k8sName, default: 'version-policy-reports' },
            namespace: { ...k8sNameOrEmpty, default: '' },
            // client-go's leader election default: a holder that stops renewing is replaced within it.
            durationSeconds: { type: 'integer', minimum: 5, maximum: 300, default: 15 },
          },
        },
      },
    },
    logLevel: {
      type: 'string',
      enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
    },
    // 8 MiB (LOG_BUFFER_BYTES in server/logging.ts says why); at least one long line.
    logBufferBytes: { type: 'integer', minimum: 16384, maximum: 1073741824, default: 8388608 },
  },
} as const;

// verbose: the errors carry the value and its schema, which the messages name.
const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: true, verbose: true });
const validate = ajv.compile(configSchema);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Validates a parsed config and fills in every default. Throws ConfigError naming each bad key. */
export function resolveConfig(raw: unknown = {}, source = 'config'): Config {
  const copy: unknown = raw === null || raw === undefined ? {} : structuredClone(raw);
  if (!validate(copy)) throw new ConfigError(`${source}: ${(validate.errors ?? []).map(problemText).join('; ')}`);
  return copy as Config;
}

/** One schema error in words: where, what was found, and what is allowed (with the nearest key or value). */
function problemText(e: ErrorObject): string {
  const where = keyPath(e.instancePath);
  const found = JSON.stringify(e.data);
  const parent = e.parentSchema as { properties?: Record<string, unknown> } | undefined;
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(e.params.additionalProperty);
      const allowed = Object.keys(parent?.properties ?? {});
      return `${where || '(top level)'}: unknown key ${JSON.stringify(key)}${didYouMean(key, allowed)}; allowed: ${allowed.join(', ')}`;
    }
    case 'enum': {
      const allowed = (e.params.allowedValues as unknown[]).map(String);
      return `${where}: ${found} is not allowed${typeof e.data === 'string' ? didYouMean(e.data, allowed) : ''}; allowed: ${allowed.join(', ')}`;
    }
    case 'pattern':
      return `${where}: ${found} ${e.params.pattern === DURATION_PATTERN ? DURATION_HINT : NAME_HINT}`;
    case 'uniqueItems':
      return `${where}: lists ${JSON.stringify((e.data as unknown[])[e.params.i as number])} twice`;
    case 'type':
      return `${where || '(top level)'}: must be ${e.params.type === 'object' ? 'a mapping of keys' : String(e.params.type)}, found ${found ?? 'nothing'}`;
    default:
      return `${where}: ${e.message ?? 'invalid'}, found ${found}`;
  }
}

const DURATION_HINT =
  'is not a duration: write a number and a unit (h, m, s, ms, us or ns), as Go does, e.g. 2880h for 120 days (Go has no d)';
const NAME_HINT =
  "is not a Kubernetes name: lower-case letters, digits, '-' and '.', starting and ending with a letter or a digit";

/** `/forecast/deny/0` → `forecast.deny[0]`. */
function keyPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((seg) => seg.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((out, seg) => (/^\d+$/.test(seg) ? `${out}[${seg}]` : out === '' ? seg : `${out}.${seg}`), '');
}

export function defaultConfig(): Config {
  return resolveConfig({});
}

/** Reads a YAML or JSON config file. */
export async function loadConfig(path: string | undefined): Promise<Config> {
  if (!path) return defaultConfig();
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`${path}: cannot read config file: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`${path}: not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  return resolveConfig(raw, path);
}
