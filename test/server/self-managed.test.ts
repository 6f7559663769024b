// The self-managed certificate tests that run a replica against the fake API server. Each part
// reads on its own; they share one process because each loads client-node (about 900 modules),
// and under tap's processinfo loader that load costs about 6 s of CPU per process (bench/NOTES.md
// §7). The parts run one after the other, in this order.
import t from 'tap';

// Five parts' worth of whole-second certificate clocks, on a shared machine.
t.setTimeout(600_000);

await import('./self-managed-rotation.part.js');
await import('./self-managed-replicas.part.js');
await import('./self-managed-failures.part.js');
await import('./self-managed-rbac.part.js');
await import('./self-managed-docs.part.js');
