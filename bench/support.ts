/** Paths and temporary folders for benchmarks (the tests' helpers, re-exported so bench/ reads on its own). */
export { REPO_ROOT } from '../test/support/paths.js';
export { fitCorpusKeys, fitCorpusPath } from '../test/support/fit-corpus.js';
export { tempDir } from '../test/support/stack.js';
