// The CLI commands that read a cluster: check and explain --cluster, state export, serve's state
// source and remove-webhooks, against the fake API server. Each part reads on its own; they share
// one process because each loads client-node (about 900 modules), and under tap's processinfo
// loader that load costs about 6 s of CPU per process (bench/NOTES.md §7). The parts run one
// after the other.
import t from 'tap';

// Dozens of CLI runs, many side by side, on a shared machine.
t.setTimeout(600_000);

await import('./cluster-state.part.js');
await import('./state-export.part.js');
await import('./serve-state-source.part.js');
await import('./remove-webhooks.part.js');
