// The config file: one JSON Schema (ajv, with defaults), shared by `serve`, `check`, `explain`
// and the Helm chart's tests. Every key is optional.
import { readFile } from 'node:fs/promises';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { DURATION_PATTERN } from './policy/duration.js';
import { RULE_IDS, type RuleId } from './policy/rule.js';

export interface LifecycleDefaultingConfig {
  enabled: boolean;
  maintainedMinors: number;
  expirationMaintained: string;
  expirationUnmaintained: string;
  machineImageExpiration: string;
}

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

export interface Config {
  featureGates: { VersionClassificationLifecycle: boolean };
  rules: Record<RuleId, { enabled: boolean }>;
  defaulting: { gardenerDefaults: boolean; lifecycle: LifecycleDefaultingConfig };
  warnings: { expiringWithinDays: number };
  server: {
    host: string;
    port: number;
    tls: { certFile: string; keyFile: string; clientCAFile: string; selfManaged: SelfManagedConfig };
    /** Two objects at etcd's 1.5 MiB request limit, plus the AdmissionReview envelope, fit in 7 MiB. */
    bodyLimitBytes: number;
    /** Plain-HTTP port for /healthz, /readyz and /metrics; 0 = off. */
    probePort: number;
    shutdownGraceSeconds: number;
    certReloadIntervalSeconds: number;
  };
  cluster: { enabled: boolean; kubeconfig: string };
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
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
      properties: { VersionClassificationLifecycle: { type: 'boolean', default: true } },
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
        probePort: { type: 'integer', minimum: 0, maximum: 65535, default: 0 },
        shutdownGraceSeconds: { type: 'number', minimum: 0, default: 25 },
        certReloadIntervalSeconds: { type: 'number', exclusiveMinimum: 0, default: 10 },
      },
    },
    cluster: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        enabled: { type: 'boolean', default: true },
        kubeconfig: { type: 'string', default: '' },
      },
    },
    logLevel: {
      type: 'string',
      enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
    },
  },
} as const;

const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: true });
const validate = ajv.compile(configSchema);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Validates a parsed config and fills in every default. Throws ConfigError naming each bad key. */
export function resolveConfig(raw: unknown = {}, source = 'config'): Config {
  const copy: unknown = raw === null || raw === undefined ? {} : structuredClone(raw);
  if (!validate(copy)) {
    const problems = (validate.errors ?? []).map((e) => {
      const where = e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : '(top level)';
      const extra = e.keyword === 'additionalProperties' ? ` '${String(e.params.additionalProperty)}'` : '';
      return `${where}: ${e.message ?? 'invalid'}${extra}`;
    });
    throw new ConfigError(`${source}: ${problems.join('; ')}`);
  }
  return copy as Config;
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

export function ruleEnabled(config: Config, id: RuleId): boolean {
  return config.rules[id].enabled;
}
