/**
 * The shape of the tree, read from the sources' imports (TypeScript's own pre-processor, so `import
 * type` and `export … from` count like any import):
 *
 * - no import cycle anywhere, type-only imports included;
 * - the gateway imports from engine/ only the wire contract, the token helper and the error codes;
 * - kernels import nothing outside engine/kernels/ (no packages either);
 * - models (engine/models/: pure physiology over marker values and activity summaries) import only
 *   models, kernels and domain/, and no package;
 * - route files are leaves: none imports another (routes/index.ts assembles them);
 * - the layers point one way: storage/ and domain/ import no service, engine/ imports no gateway/ or cli/,
 *   gateway/ imports no cli/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import * as assert from 'uvu/assert';
import { test } from './support/uvu.js';
import { REPO_ROOT } from './support/paths.js';

const SOURCE_FOLDERS = ['cli', 'gateway', 'engine', 'storage', 'domain'];

/** Repository-relative source path → the repository-relative paths (or package names) it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const folder of SOURCE_FOLDERS) {
    for (const file of walk(path.join(REPO_ROOT, folder))) {
      const relative = path.relative(REPO_ROOT, file);
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      graph.set(relative, importedFiles.map(({ fileName }) => resolve(relative, fileName)));
    }
  }
  return graph;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return walk(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** `./x.js` from `gateway/app.ts` → `gateway/x.ts`; a package specifier stays as it is. */
function resolve(from: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  return path.join(path.dirname(from), specifier).replace(/\.js$/, '.ts');
}

const graph = importGraph();
const local = (target: string): boolean => graph.has(target);

function offenders(files: (file: string) => boolean, forbidden: (file: string, target: string) => boolean): string[] {
  return [...graph].filter(([file]) => files(file)).flatMap(([file, targets]) => targets.filter((target) => forbidden(file, target)).map((target) => `${file} → ${target}`));
}

test('reads every source folder', () => {
  for (const folder of SOURCE_FOLDERS) assert.ok([...graph.keys()].some((file) => file.startsWith(`${folder}/`)), folder);
  const unresolved = [...graph].flatMap(([file, targets]) => targets.filter((target) => target.endsWith('.ts') && !local(target)).map((target) => `${file} → ${target}`));
  assert.equal(unresolved, [], 'every relative import names a source file');
});

test('has no import cycle, type-only imports included', () => {
  // Tarjan's strongly connected components; any component of more than one file, or a self-import, is a cycle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of (graph.get(file) ?? []).filter(local)) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  assert.equal(cycles, []);
});

test('the gateway imports from engine/ only its contract, its token helper and its error codes', () => {
  const allowed = new Set(['engine/contract.ts', 'engine/authenticate.ts', 'engine/error-codes.ts']);
  assert.equal(offenders((file) => file.startsWith('gateway/'), (_file, target) => target.startsWith('engine/') && !allowed.has(target)), []);
});

test('kernels import nothing outside engine/kernels/', () => {
  assert.equal(offenders((file) => file.startsWith('engine/kernels/'), (_file, target) => !target.startsWith('engine/kernels/')), []);
});

test('models import only engine/models/, engine/kernels/ and domain/', () => {
  const allowed = (target: string): boolean => /^(engine\/models|engine\/kernels|domain)\//.test(target);
  assert.equal(offenders((file) => file.startsWith('engine/models/'), (_file, target) => !allowed(target)), []);
});

test('route files are leaves: none imports another', () => {
  const isRoute = (file: string): boolean => file.startsWith('gateway/routes/') && file !== 'gateway/routes/index.ts';
  assert.equal(offenders(isRoute, (_file, target) => target.startsWith('gateway/routes/')), []);
});

test('layers point one way: storage and domain import no service, the engine no gateway or cli, the gateway no cli', () => {
  const below = (file: string, target: string): boolean => {
    if (file.startsWith('storage/') || file.startsWith('domain/')) return /^(gateway|engine|cli)\//.test(target) || (file.startsWith('domain/') && target.startsWith('storage/'));
    if (file.startsWith('engine/')) return /^(gateway|cli)\//.test(target);
    if (file.startsWith('gateway/')) return target.startsWith('cli/');
    return false;
  };
  assert.equal(offenders(() => true, below), []);
});

test.run();
