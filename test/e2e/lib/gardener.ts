// A Gardener control plane on loopback: test/e2e/gardener (gardener-envtest, built by
// test/e2e/build-gardener.sh) runs Gardener's own GardenerTestEnvironment: etcd and kube-apiserver
// from E2E_BIN, and the real gardener-apiserver of the pinned release, registered as an APIService
// for core.gardener.cloud. No CRD serves Gardener's kinds here: kube-apiserver only proxies them,
// and gardener-apiserver defaults, validates and admits them (our webhooks included).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  createCertificateAuthority,
  issueCertificate,
  type CertificatePair,
} from '../../../src/server/tls/self-signed.js';
import { binDir, waitFor } from './control-plane.js';
import { adoptPid, startProcess, type Started } from './processes.js';

/** The gardener-envtest binary: E2E_GARDENER, which test/e2e/build-gardener.sh prints. */
export function gardenerBinary(): string {
  const bin = process.env.E2E_GARDENER ?? '';
  if (!bin || !existsSync(bin))
    throw new Error(
      `E2E_GARDENER (${bin || 'unset'}) is no gardener-envtest binary: set E2E_GARDENER=$(test/e2e/build-gardener.sh)`,
    );
  return bin;
}

/** What gardener-envtest prints on stdout once gardener-apiserver serves its APIs. */
interface ReadyLine {
  kubeconfig: string;
  server: string;
  featureGates: string;
  children: Record<string, number>;
  startSeconds: number;
  versions: Record<string, string>;
}

export interface GardenerPlane {
  dir: string;
  /** kube-apiserver: https://127.0.0.1:<port> */
  server: string;
  /** PEM of the CA kube-apiserver's serving certificate chains to. */
  caPem: string;
  /** The admin (system:masters, client certificate) kubeconfig that gardener-envtest wrote. */
  adminKubeconfig: string;
  lifecycleGate: boolean;
  /** Seconds from start to gardener-apiserver's APIs being discoverable, as gardener-envtest measured. */
  startSeconds: number;
  versions: Record<string, string>;
  proc: Started;
  /** A CA for the webhook's serving certificate (gardener-apiserver trusts it through caBundle). */
  issue(hosts: string[]): Promise<CertificatePair>;
  caBundle: string;
  stop(): Promise<void>;
}

/** Starts gardener-envtest in `dir` with VersionClassificationLifecycle set to `lifecycleGate`. */
export async function startGardener(dir: string, lifecycleGate: boolean): Promise<GardenerPlane> {
  const name = `gardener-envtest-gate-${lifecycleGate ? 'on' : 'off'}`;
  const kubeconfig = join(dir, `${name}.kubeconfig`);
  const proc = startProcess(
    name,
    gardenerBinary(),
    ['--kubeconfig', kubeconfig, `--feature-gates=VersionClassificationLifecycle=${lifecycleGate}`],
    {
      logDir: dir,
      env: { ...process.env, KUBEBUILDER_ASSETS: binDir() },
    },
  );
  let line: ReadyLine;
  try {
    line = await waitFor(
      `${name} ready`,
      async () => {
        const text = await readFile(proc.logFile, 'utf8').catch(() => '');
        const found = text.split('\n').find((l) => l.startsWith('{"kubeconfig"'));
        if (found) return JSON.parse(found) as ReadyLine;
        const code = await Promise.race([proc.exited, new Promise<undefined>((r) => setTimeout(r, 0, undefined))]);
        if (code !== undefined) throw new Error(`${name} exited (${code}):\n${text.split('\n').slice(-30).join('\n')}`);
        return undefined;
      },
      240_000,
      250,
    );
  } catch (err) {
    await proc.stop();
    throw err;
  }
  const released = Object.entries(line.children).map(([child, pid]) => adoptPid(`${child} (of ${name})`, pid));
  const config = parse(await readFile(kubeconfig, 'utf8')) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  };
  const cluster = config.clusters[0]!.cluster;
  const ca = await createCertificateAuthority('version-policy gardener e2e CA', 1);
  return {
    dir,
    server: cluster.server,
    caPem: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8'),
    adminKubeconfig: kubeconfig,
    lifecycleGate,
    startSeconds: line.startSeconds,
    versions: line.versions,
    proc,
    issue: (hosts) => issueCertificate(ca, { hosts, days: 1 }),
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    async stop() {
      // gardener-envtest stops gardener-apiserver, kube-apiserver and etcd on SIGTERM.
      await proc.stop(60_000);
      // Killed after the grace period, it could not stop them: do it here.
      for (const pid of Object.values(line.children)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // stopped with it, as it should be
        }
      }
      for (const release of released) release();
    },
  };
}
