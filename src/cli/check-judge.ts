// `check` judges each FILE object as the request kube-apiserver would send for it: a CREATE, an
// UPDATE of its old self (from --old, else from the state), or a DELETE. evaluate() runs the
// mutating path and then the rules, as the API server runs the two webhooks; what the mutating
// path changed is reported as the defaults applied.
import { jsonPatch } from '../admission/patch.js';
import { fieldLines, type SourcedObject } from '../cluster/object-files.js';
import type { ClusterState } from '../api/cluster-state.js';
import type { Config } from '../config.js';
import { evaluate } from '../policy/evaluate.js';
import type { PolicyRequest } from '../policy/rule.js';
import type { PolicedObject } from '../api/types.js';
import type { Defaulted, JudgedObject } from './check-output.js';
import { identity } from './check-inputs.js';

export interface JudgeOptions {
  config: Config;
  now: number;
  /** Judge the objects as DELETE requests. */
  delete: boolean;
  /** Run the mutating path first (default), or judge the objects as written. */
  mutate: boolean;
}

/**
 * Judges each object against the state and its own old self, never against the other objects of
 * the run. `old` (from --old) wins over the state as the old object; the state still gives the
 * Shoots and the parent profiles.
 */
export function judgeAll(
  inputs: readonly SourcedObject[],
  state: ClusterState,
  old: ReadonlyMap<string, SourcedObject>,
  opts: JudgeOptions,
): JudgedObject[] {
  const stored = storedLookup(state);
  return inputs.map(({ object, file, document, line }) => {
    const previous = old.get(identity(object))?.object;
    const request = requestFor(object, opts.delete ? previous : (previous ?? stored(object)), opts.delete);
    // A rule that needs a state which is not there says so in a note: `check` never guesses "allowed" silently.
    const decision = evaluate(request, {
      now: opts.now,
      config: opts.config,
      state,
      unsyncedState: 'note',
      mutate: opts.mutate,
    });
    const result = request.operation === 'DELETE' ? null : (decision.object ?? object);
    return {
      file,
      document,
      line,
      kind: object.kind,
      namespace: object.metadata.namespace ?? null,
      name: object.metadata.name,
      operation: request.operation,
      allowed: decision.allowed,
      violations: decision.violations,
      warnings: decision.allWarnings,
      notes: decision.notes,
      defaulted: result && decision.mutated ? defaultsApplied(object, result) : [],
      forecast: [],
      object: result,
      shownWarnings: decision.warnings,
    };
  });
}

function requestFor(object: PolicedObject, existing: PolicedObject | undefined, isDelete: boolean): PolicyRequest {
  const base = {
    kind: object.kind,
    name: object.metadata.name,
    ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    dryRun: false,
  };
  // A DELETE carries the stored object; --old knows it better than the file that names it.
  if (isDelete) return { ...base, operation: 'DELETE', oldObject: existing ?? object };
  if (existing) return { ...base, operation: 'UPDATE', object, oldObject: existing };
  return { ...base, operation: 'CREATE', object };
}

/** The state's object with the same kind, namespace and name. */
function storedLookup(state: ClusterState): (o: PolicedObject) => PolicedObject | undefined {
  let shoots: Map<string, PolicedObject> | undefined;
  return (o) => {
    switch (o.kind) {
      case 'CloudProfile':
        return state.cloudProfile(o.metadata.name);
      case 'NamespacedCloudProfile':
        return state.namespacedCloudProfile(o.metadata.namespace, o.metadata.name);
      case 'Shoot':
        // ClusterState has no Shoot-by-name lookup; index them once per run.
        shoots ??= new Map([...state.allShoots()].map((s) => [`${s.metadata.namespace}/${s.metadata.name}`, s]));
        return shoots.get(`${o.metadata.namespace}/${o.metadata.name}`);
    }
  };
}

/** What the mutating path changed, as JSON Patch operations that also name the field for people, in field order. */
export function defaultsApplied(before: PolicedObject, after: PolicedObject): Defaulted[] {
  return byPath(jsonPatch(before, after)).map((op) => ({
    field: fieldOf(op.path, op.op === 'remove' ? before : after),
    op: op.op as Defaulted['op'],
    path: op.path,
    ...('value' in op ? { value: op.value as unknown } : {}),
  }));
}

/** The diff lists fields in no useful order; sort segment by segment, list indexes as numbers. */
function byPath<T extends { path: string }>(ops: T[]): T[] {
  const segments = (p: string) => p.split('/');
  return ops.sort((a, b) => {
    const [x, y] = [segments(a.path), segments(b.path)];
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const [s, t] = [x[i] ?? '', y[i] ?? ''];
      if (s === t) continue;
      const numeric = /^\d+$/.test(s) && /^\d+$/.test(t);
      return numeric ? Number(s) - Number(t) : s < t ? -1 : 1;
    }
    return x.length - y.length;
  });
}

/** `/spec/machineImages/0/updateStrategy` → `spec.machineImages[0].updateStrategy`, reading `root` to tell list indexes from keys. */
export function fieldOf(pointer: string, root: unknown): string {
  let out = '';
  let node: unknown = root;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[seg] : undefined;
  }
  return out;
}

/** The line of each violation and forecast finding: the field's, in the file the object was read from. */
export function located(results: readonly JudgedObject[], texts: ReadonlyMap<string, string>): JudgedObject[] {
  const finders = new Map<string, ReturnType<typeof fieldLines>>();
  const lineOf = (r: JudgedObject, field: string): number => {
    const text = texts.get(r.file);
    if (text === undefined || r.operation === 'DELETE') return r.line;
    let find = finders.get(r.file);
    if (!find) finders.set(r.file, (find = fieldLines(text)));
    return find(r, field);
  };
  return results.map((r) => ({
    ...r,
    violations: r.violations.map((v) => ({ ...v, line: lineOf(r, v.field) })),
    forecast: r.forecast.map((f) => ({ ...f, line: lineOf(r, f.field) })),
  }));
}
