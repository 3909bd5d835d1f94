/**
 * `items` mapped one at a time as the consumer reads them: handed to `insertRows`, each statement's rows are built
 * after the loop's turn before it, not all before the first statement.
 */
export function* lazyMap<I, R>(items: readonly I[], map: (item: I, index: number) => R): Generator<R> {
  for (let index = 0; index < items.length; index++) yield map(items[index]!, index);
}
