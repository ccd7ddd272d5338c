/**
 * Reads of a changing value (the store's head revision) shared between concurrent callers without
 * ever answering from a read that began before the caller asked: a caller joins the one read not
 * yet begun, or schedules it. That read begins once the running one (if any) has settled and the
 * event loop has taken in what arrived with the caller (setImmediate), so the calls that arrive
 * together — one socket read's worth — share one query. Any number of callers in flight cost at
 * most one query at a time, and each answer is at least as fresh as a read of its own would have
 * been (CheckForUpdate's "fully consistent" stays exact).
 */
export function sharedReads<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  const settled = () => undefined;
  const afterArrivals = () => new Promise<void>((resolve) => setImmediate(resolve));
  const begin = (): Promise<T> => {
    next = undefined;
    const started: Promise<T> = read().finally(() => {
      if (running === started) running = undefined;
    });
    running = started;
    return started;
  };
  return () => {
    next ??= (running === undefined ? afterArrivals() : running.then(settled, settled).then(afterArrivals)).then(begin);
    return next;
  };
}
