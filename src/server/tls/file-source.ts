// Serving certificate from files, reloaded without a restart: the files' directories are watched
// (a Kubernetes Secret volume swaps a `..data` symlink, which a watch on the file itself misses),
// and they are polled as a fallback for file systems where watching is unreliable. A read that
// fails the pair check (half-written rotation, truncated file) leaves the last good pair in place.
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { CertificateSource, TlsMaterial } from './certificate-source.js';
import { CertificateError, checkMaterial, materialDigest } from './certificate-source.js';

export interface FileSourceOptions {
  certFile: string;
  keyFile: string;
  /** Client CA bundle; when set, client certificates are required (mTLS). */
  clientCAFile?: string;
  pollIntervalMs: number;
  /** Watch the directories as well as polling (default true). */
  watch?: boolean;
}

export type ReloadResult = 'unchanged' | 'changed' | 'failed';

/** Files change in bursts (certificate, then key); one read after the burst settles avoids a pointless failure. */
const SETTLE_MS = 50;

interface Files {
  cert: string;
  key: string;
  clientCA?: string;
}

export class FileCertificateSource implements CertificateSource {
  private material: TlsMaterial;
  private readonly changeListeners: Array<(m: TlsMaterial) => void> = [];
  private readonly errorListeners: Array<(e: Error) => void> = [];
  private readonly watchers: FSWatcher[] = [];
  private readonly poll: NodeJS.Timeout;
  private settle: NodeJS.Timeout | undefined;
  private running: Promise<ReloadResult> | undefined;
  private again = false;
  private closed = false;
  /** Digest of file contents that already failed, so a broken file is reported once, not every poll. */
  private lastFailure: string | undefined;

  /** Reads the files once; throws CertificateError if they are not a usable pair. */
  static async open(opts: FileSourceOptions): Promise<FileCertificateSource> {
    const files = await readFiles(opts);
    return new FileCertificateSource(opts, checkMaterial(files.cert, files.key, files.clientCA));
  }

  private constructor(
    private readonly opts: FileSourceOptions,
    initial: TlsMaterial,
  ) {
    this.material = initial;
    this.poll = setInterval(() => void this.reload(), opts.pollIntervalMs).unref();
    if (opts.watch !== false) this.watchDirectories();
  }

  current(): TlsMaterial {
    return this.material;
  }

  onChange(listener: (m: TlsMaterial) => void): void {
    this.changeListeners.push(listener);
  }

  onError(listener: (e: Error) => void): void {
    this.errorListeners.push(listener);
  }

  /** Reads the files now. Concurrent calls share one read, and a call during a read causes one more. */
  reload(): Promise<ReloadResult> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      let result: ReloadResult;
      do {
        this.again = false;
        result = await this.readOnce();
      } while (this.again && !this.closed);
      return result;
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poll);
    clearTimeout(this.settle);
    for (const w of this.watchers) w.close();
    await this.running;
  }

  private async readOnce(): Promise<ReloadResult> {
    let files: Files;
    try {
      files = await readFiles(this.opts);
    } catch (err) {
      return this.failed(`read:${(err as Error).message}`, err as Error);
    }
    const raw = materialDigest(files.cert, files.key, files.clientCA);
    if (raw === this.material.digest || this.closed) return 'unchanged';
    if (raw === this.lastFailure) return 'unchanged';
    let next: TlsMaterial;
    try {
      next = checkMaterial(files.cert, files.key, files.clientCA);
    } catch (err) {
      return this.failed(raw, err as Error);
    }
    this.lastFailure = undefined;
    this.material = next;
    for (const listener of this.changeListeners) listener(next);
    return 'changed';
  }

  private failed(key: string, error: Error): ReloadResult {
    if (key === this.lastFailure) return 'unchanged';
    this.lastFailure = key;
    const reported = error instanceof CertificateError ? error : new CertificateError(error.message);
    for (const listener of this.errorListeners) listener(reported);
    return 'failed';
  }

  private watchDirectories(): void {
    const files = [this.opts.certFile, this.opts.keyFile, this.opts.clientCAFile].filter((f): f is string =>
      Boolean(f),
    );
    for (const dir of new Set(files.map((f) => dirname(resolve(f))))) {
      try {
        const watcher = watch(dir, { persistent: false }, () => this.scheduleReload());
        // The poll still runs, so a watch that dies only makes reloads slower.
        watcher.on('error', () => watcher.close());
        this.watchers.push(watcher);
      } catch {
        // Directory not watchable here (some network file systems): polling covers it.
      }
    }
  }

  private scheduleReload(): void {
    if (this.closed) return;
    clearTimeout(this.settle);
    this.settle = setTimeout(() => void this.reload(), SETTLE_MS).unref();
  }
}

async function readFiles(opts: FileSourceOptions): Promise<Files> {
  const [cert, key, clientCA] = await Promise.all([
    readNamed('serving certificate', opts.certFile),
    readNamed('serving key', opts.keyFile),
    opts.clientCAFile ? readNamed('client CA', opts.clientCAFile) : Promise.resolve(undefined),
  ]);
  return { cert, key, ...(clientCA !== undefined ? { clientCA } : {}) };
}

async function readNamed(what: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new CertificateError(
      `cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}
