/** A number in [0, 1): Math.random in service, a seeded generator in tests. */
export type RandomSource = () => number;

/**
 * The order to try `items` in, as DNS SRV records are read: lower priority first; within one
 * priority, a weighted random order when any item there declares a weight (an item without one
 * counts 1), else their given order. Pure but for `random`.
 */
export function balancedOrder<T>(
  items: readonly T[],
  priorityOf: (item: T) => number,
  weightOf: (item: T) => number | undefined,
  random: RandomSource,
): readonly T[] {
  // The common case (one endpoint, or one priority) allocates nothing more.
  if (items.length < 2) return items;
  const first = priorityOf(items[0]!);
  if (items.every((item) => priorityOf(item) === first)) return weightedOrder(items, weightOf, random);
  const priorities = [...new Set(items.map(priorityOf))].sort((a, b) => a - b);
  return priorities.flatMap((priority) =>
    weightedOrder(
      items.filter((item) => priorityOf(item) === priority),
      weightOf,
      random,
    ),
  );
}

/**
 * A weighted random order (Efraimidis-Spirakis: each item keyed `u^(1/w)`, largest first), so
 * the first is item i with probability w_i / sum(w) and the rest follow as its fallbacks. Weight 0
 * drains an item: after every weighted one. Nobody declaring a weight: the given order.
 */
export function weightedOrder<T>(items: readonly T[], weightOf: (item: T) => number | undefined, random: RandomSource): readonly T[] {
  if (items.length < 2 || items.every((item) => weightOf(item) === undefined)) return items;
  return items
    .map((item, index) => {
      const weight = weightOf(item) ?? 1;
      return { item, index, key: weight > 0 ? Math.pow(random(), 1 / weight) : -1 };
    })
    .sort((a, b) => b.key - a.key || a.index - b.index)
    .map(({ item }) => item);
}
