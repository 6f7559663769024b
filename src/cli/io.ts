// What a command reads and writes besides its files: the standard streams and the environment (for
// the kubeconfig lookup). `main` gets the process's; the tests give each run its own, so that a
// command runs in-process as it does in a CI job, without a node start per run.
export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** One run of the program: its streams and the exit code its command sets. */
export interface Invocation {
  readonly io: CliIo;
  exitCode: number;
}

/** The process's own streams, opened only when a command reads or writes them (process.stdin opens a handle). */
export function processIo(): CliIo {
  return {
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  };
}
