/** Runs `fn` over `items` with at most `parallel` calls in flight; results in item order; the first failure rejects. */
export async function mapLimit<T, R>(items: readonly T[], parallel: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      out[index] = await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, parallel), items.length) }, lane));
  return out;
}
