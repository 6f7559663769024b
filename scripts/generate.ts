// Writes every generated file: the copies of the rule list (rule-copies.ts), then the chart README,
// which reads the chart schema those copies write.
//   npm run generate
import { readFileSync, writeFileSync } from 'node:fs';
import { chartReadme, README } from './chart-readme.js';
import { COPIES, LISTED, pathOf } from './rule-copies.js';

for (const copy of COPIES) {
  const path = pathOf(copy.file);
  const current = readFileSync(path, 'utf8');
  const next = copy.make(current, LISTED);
  if (next !== current) writeFileSync(path, next);
  console.log(`${next === current ? 'unchanged' : 'wrote'} ${copy.file}`);
}
writeFileSync(README, chartReadme());
console.log(`wrote ${README}`);
