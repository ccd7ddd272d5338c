/**
 * Reads of a changing value (the store's head revision) shared between concurrent callers without
 * ever answering from a read that began before the caller asked: a caller joins the one read not
 * yet begun, or schedules it. That read begins once the event loop has taken in what arrived with
 * the caller (setImmediate: one socket read's worth of calls), so the calls that arrive together
 * share one query, and a caller does not wait behind a read it cannot use. At most MAX_RUNNING
 * reads run at once (a further one waits for the oldest to settle), so calls trickling in cost
 * at most two queries per round trip.
 * Each answer is at least as fresh as a read of the caller's own would have been
 * (CheckForUpdate's "fully consistent" stays exact).
 */
const MAX_RUNNING = 2;

export function sharedReads<T>(read: () => Promise<T>): () => Promise<T> {
  const running: Promise<unknown>[] = [];
  let next: Promise<T> | undefined;
  const settled = () => undefined;
  const afterArrivals = () => new Promise<void>((resolve) => setImmediate(resolve));
  const begin = (): Promise<T> => {
    next = undefined;
    const started = read();
    const done: Promise<void> = started.then(settled, settled).then(() => {
      running.splice(running.indexOf(done), 1);
    });
    running.push(done);
    return started;
  };
  return () => {
    next ??= (running.length < MAX_RUNNING ? afterArrivals() : running[0]!.then(afterArrivals)).then(begin);
    return next;
  };
}
