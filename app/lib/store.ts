/**
 * @module A value that components watch: `useStore(store)` re-renders on each `set`. The app's
 * few shared states (the account, the step-up prompt, the toast line) are stores; everything else
 * is a page's own state.
 */
import { useEffect, useState } from "preact/hooks";

export class Store<T> {
  #value: T;
  readonly #listeners = new Set<(value: T) => void>();
  constructor(value: T) {
    this.#value = value;
  }
  get(): T {
    return this.#value;
  }
  set(value: T): void {
    this.#value = value;
    for (const listener of [...this.#listeners]) listener(value);
  }
  subscribe(listener: (value: T) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** The store's value, re-rendering when it changes. */
export function useStore<T>(store: Store<T>): T {
  const [value, setValue] = useState(store.get());
  useEffect(() => {
    setValue(store.get());
    return store.subscribe(setValue);
  }, [store]);
  return value;
}
