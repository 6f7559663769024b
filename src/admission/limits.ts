// The bounds a request cannot exceed, whatever it claims: each one keeps the work per review, the
// answer and the log line small.

/**
 * The longest uid we echo. Kubernetes uids are 36-character UUIDs, and kube-apiserver makes the
 * review's uid the same way; 256 leaves room for any client that formats it otherwise, while a
 * longer one (the 1 MiB uid that was echoed and logged whole) is refused with a plain 400.
 */
export const MAX_UID_LENGTH = 256;

/**
 * The deepest nesting of arrays and objects a body may have. Gardener's objects nest about 10
 * levels (20 with a deep providerConfig); Go's encoding/json, which kube-apiserver builds on,
 * stops at 10,000. JSON.parse costs about 0.2 µs per level (a 7 MiB body of `[` alone would block
 * the loop for 0.7 s), and recursive code downstream (structuredClone, JSON Patch) needs a stack
 * frame per level, so 1,000 keeps both far from trouble.
 */
export const MAX_NESTING_DEPTH = 1000;

/** The longest request-controlled string shown in a message or a log field (names, users, headers). */
export const MAX_SHOWN_LENGTH = 256;

/** `value` cut to `max` characters and marked as cut. */
export function bounded(value: string, max = MAX_SHOWN_LENGTH): string {
  return value.length <= max ? value : `${value.slice(0, max)}…(${value.length - max} more)`;
}
