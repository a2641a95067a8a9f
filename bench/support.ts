/** Paths and temporary folders for benchmarks (the tests' helpers, re-exported so bench/ reads on its own). */
export { SHARED, REPO_ROOT } from '../test/support/paths.js';
export { tempDir } from '../test/support/stack.js';
