// The Dockerfile as data: its stages and instructions, and the runtime stage's ENTRYPOINT and CMD.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../helpers/helm.js';

export interface Stage {
  from: string;
  name?: string;
  instructions: { op: string; args: string }[];
}

/** The Dockerfile as stages of (instruction, arguments), with ARG defaults substituted into FROM. */
export function parseDockerfile(text: string): Stage[] {
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  for (const line of lines.map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))) {
    const [, op = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = op.toUpperCase();
    if (upper === 'ARG' && stages.length === 0) {
      const [k, v = ''] = rest.split('=');
      args.set(k!, v);
    } else if (upper === 'FROM') {
      const [image = '', , name] = rest.replace(/\$\{(\w+)\}/g, (_m, k: string) => args.get(k) ?? '').split(/\s+/);
      stages.push({ from: image, name, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push({ op: upper, args: rest });
    }
  }
  return stages;
}

export const dockerfile = readFile(join(ROOT, 'Dockerfile'), 'utf8').then(parseDockerfile);

export async function runtimeStage(): Promise<Stage> {
  const stages = await dockerfile;
  return stages.at(-1)!;
}

export function last(stage: Stage, op: string): string | undefined {
  return stage.instructions.filter((i) => i.op === op).at(-1)?.args;
}

export async function entrypoint(): Promise<string[]> {
  return JSON.parse(last(await runtimeStage(), 'ENTRYPOINT') ?? '[]') as string[];
}

export async function cmd(): Promise<string[]> {
  return JSON.parse(last(await runtimeStage(), 'CMD') ?? '[]') as string[];
}
