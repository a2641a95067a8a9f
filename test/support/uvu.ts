/**
 * uvu's `test` and `suite` as every test file imports them, with two things uvu lacks:
 *
 * - A failing hook says why. uvu runs a suite's hooks inside a `try … finally` whose `return` swallows
 *   the error, so a suite whose `before` throws shows "(0 / 38)" and nothing else. Each hook registered
 *   here prints its error, with the suite's name, before rethrowing; test/run.ts counts the suite's
 *   tests as failed.
 * - A suite that cannot run says so and is counted: `skipUnless(missing, test)` turns every test of the
 *   suite into a skip (uvu's counter, so the closing line reads `… K skipped`), registers none of its
 *   hooks, and prints one line naming what is missing.
 *
 * Kept honest by the runner's own output: test/support/uvu.test.ts covers both paths.
 */
import { existsSync } from 'node:fs';
import { suite as uvuSuite, test as uvuTest, type Callback, type Test } from 'uvu';

type Context = Record<string, any>;

/** A named suite, as uvu's `suite`, with guarded hooks. */
export function suite<T = Context>(title?: string, context?: T): Test<T> {
  return guard(uvuSuite<T>(title, context), title ?? '');
}

/** The default suite of a file. */
export const test: Test<Context> = guard(uvuTest, '');

const skipReasons = new WeakMap<object, string>();

/**
 * When `missing` is a string, every test later registered on `suite` is counted as skipped, its hooks
 * are not registered, and the run prints `skipped <suite>: <missing>`. When it is null, nothing changes.
 * Call it before registering hooks and tests.
 */
export function skipUnless<T>(missing: string | null, on: Test<T>): void {
  if (missing === null) return;
  skipReasons.set(on, missing);
}

/** `'needs <what> (<path> is missing)'` when `path` does not exist, else null. */
export function missingPath(what: string, path: string): string | null {
  return existsSync(path) ? null : `needs ${what} (${path} is missing)`;
}

function guard<T>(inner: Test<T>, title: string): Test<T> {
  let announced = false;
  const skipped = (): string | undefined => skipReasons.get(register);
  const label = (kind: string) => `${kind} hook${title ? ` of suite "${title}"` : ''}`;
  const wrap = (kind: string, hook: Callback<T>): Callback<T> => async (context) => {
    try {
      await hook(context);
    } catch (error) {
      const cause = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.stdout.write(`\n  ✘ ${label(kind)} failed, so its tests are counted as failed:\n    ${cause.split('\n').join('\n    ')}\n`);
      throw error;
    }
  };
  const announce = (): void => {
    if (announced) return;
    announced = true;
    inner.before(() => {
      process.stdout.write(`\n  skipped${title ? ` "${title}"` : ''}: ${skipped()}\n  `);
    });
  };
  const register = ((name: string, handler: Callback<T>) => {
    if (skipped() === undefined) return inner(name, handler);
    announce();
    inner.skip(name);
  }) as Test<T>;
  const hook = (kind: 'before' | 'after') => {
    const add = (handler: Callback<T>) => {
      if (skipped() === undefined) inner[kind](wrap(kind, handler));
    };
    add.each = (handler: Callback<T>) => {
      if (skipped() === undefined) inner[kind].each(wrap(`${kind}.each`, handler));
    };
    return add;
  };
  register.before = hook('before');
  register.after = hook('after');
  register.only = (name, handler) => inner.only(name, handler);
  register.skip = (name, handler) => inner.skip(name, handler);
  register.run = () => inner.run();
  return register;
}
