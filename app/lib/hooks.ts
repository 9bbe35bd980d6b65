/**
 * @module Small hooks the pages share: `useLoad` (an `/api` read with its loading, error and a
 * reload), `useFrames` (re-run something on matching live frames) and `useBusy` (run an action,
 * keeping its error to show).
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { messageOf } from "./api.ts";
import { type EventFrame, subscribe } from "./events.ts";

export interface Loaded<T> {
  readonly data: T | null;
  readonly error: string | null;
  readonly loading: boolean;
  readonly reload: () => void;
  readonly set: (data: T) => void;
}

/**
 * Runs `load` now and whenever `deps` change or `reload()` is called; keeps the last answer while
 * reloading. Reloads asked for while a load runs are one more load after it, not one each: a page
 * reloading on every live commit sends at most one request at a time, however fast commits come.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[] = []): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  const running = useRef(false);
  const again = useRef(false);
  useEffect(() => {
    const mine = ++latest.current;
    running.current = true;
    setLoading(true);
    const settle = (apply: () => void) => {
      if (latest.current !== mine) return;
      apply();
      setLoading(false);
      running.current = false;
      if (again.current) {
        again.current = false;
        setTick((t) => t + 1);
      }
    };
    load().then(
      (value) =>
        settle(() => {
          setData(value);
          setError(null);
        }),
      (failure: unknown) => settle(() => setError(messageOf(failure))),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => {
    if (running.current) again.current = true;
    else setTick((t) => t + 1);
  }, []);
  return { data, error, loading, reload, set: setData };
}

/** Calls `onFrame` for each live frame that `match` accepts (all when absent). */
export function useFrames(onFrame: (frame: EventFrame) => void, match?: (frame: EventFrame) => boolean): void {
  const handler = useRef(onFrame);
  handler.current = onFrame;
  const matcher = useRef(match);
  matcher.current = match;
  useEffect(
    () =>
      subscribe((frame) => {
        if (matcher.current === undefined || matcher.current(frame)) handler.current(frame);
      }),
    [],
  );
}

/** `[run, busy, error, clear]`: `run(work)` runs one action at a time, keeping its error. */
export function useBusy(): readonly [(work: () => Promise<unknown>) => Promise<void>, boolean, string | null, () => void] {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  }, []);
  return [run, busy, error, () => setError(null)] as const;
}
