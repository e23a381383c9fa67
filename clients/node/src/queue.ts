/**
 * A push-to-pull queue: values pushed by a listener, pulled by `for await`.
 * Internal.
 *
 * @module
 */

/** An async iterator fed by {@link push}, ended by {@link end}. */
export class AsyncQueue<T> implements AsyncIterableIterator<T> {
  readonly #values: T[] = [];
  readonly #waiters: Array<(result: IteratorResult<T, undefined>) => void> = [];
  #ended = false;
  readonly #onReturn: () => void;

  /** @param onReturn Called once when the queue ends, to remove its listeners. */
  constructor(onReturn: () => void) {
    this.#onReturn = onReturn;
  }

  /** Adds a value; ignored once ended. */
  push(value: T): void {
    if (this.#ended) return;
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) waiter({ value, done: false });
    else this.#values.push(value);
  }

  /** Ends the iteration once the values already pushed are read. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#onReturn();
    for (const waiter of this.#waiters.splice(0)) waiter({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.#values.length > 0) return Promise.resolve({ value: this.#values.shift() as T, done: false });
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  return(): Promise<IteratorResult<T, undefined>> {
    this.#values.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
