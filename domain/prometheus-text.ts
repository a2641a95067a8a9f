/**
 * Joins Prometheus text expositions (format 0.0.4) from several registries into one, family by family:
 * a metric family named in more than one text appears once, with its first `# HELP` and `# TYPE` and the
 * samples of every text after them. Plain concatenation would repeat `# HELP`/`# TYPE` lines, which the
 * format forbids and strict parsers (promtool, client_golang's expfmt) refuse.
 *
 * It does not relabel or add up samples: texts that describe different processes must already differ in
 * their labels (the engine's process metrics carry `process="engine"`, engine/metrics.ts). Families keep
 * the order of their first appearance. test/domain/prometheus-text.test.ts keeps it honest; the /metrics
 * tests (test/gateway/metrics*.test.ts) check that every family of a scrape is declared once.
 */

interface Family {
  comments: string[];
  samples: string[];
}

/** One exposition holding every family of `texts`, in the layout prom-client writes (a blank line between families). */
export function mergeExpositions(texts: readonly string[]): string {
  const families = new Map<string, Family>();
  for (const text of texts) {
    let current: Family | null = null;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const comment = /^# (HELP|TYPE) (\S+)/.exec(line);
      if (comment !== null) {
        const name = comment[2]!;
        current = families.get(name) ?? null;
        if (current === null) families.set(name, (current = { comments: [], samples: [] }));
        if (!current.comments.some((seen) => seen.startsWith(`# ${comment[1]} `))) current.comments.push(line);
        continue;
      }
      if (line.startsWith('#')) continue;
      // A sample before any HELP/TYPE line (not something prom-client writes): a family of its own.
      if (current === null) {
        const name = /^[^{\s]+/.exec(line)![0];
        current = families.get(name) ?? { comments: [], samples: [] };
        families.set(name, current);
      }
      current.samples.push(line);
    }
  }
  return `${[...families.values()].map((family) => [...family.comments, ...family.samples].join('\n')).join('\n\n')}\n`;
}
