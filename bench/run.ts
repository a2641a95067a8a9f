/**
 * `npm run bench`: runs every benchmark script in this folder, one question each, and prints one line
 * per question. Absolute times are indicative only (machines here are noisy); the ratios, measured in
 * the same run, are the figures to compare.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv[2];
for (const file of readdirSync(here).filter((name) => name.endsWith('.bench.js')).sort()) {
  if (only && !file.includes(only)) continue;
  const { question, run } = (await import(path.join(here, file))) as { question: string; run: () => Promise<string> };
  process.stdout.write(`${question}\n  ${await run()}\n`);
}
