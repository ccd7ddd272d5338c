/**
 * Reads of a changing value (the store's head revision) shared between concurrent callers without
 * ever answering from a read that began before the caller asked: a caller starts a read when none
 * is running, and otherwise joins the one read queued to start when the running one settles. So any
 * number of callers in flight cost at most two queries at a time, and each answer is at least as
 * fresh as a read of its own would have been (CheckForUpdate's "fully consistent" stays exact).
 */
export function sharedReads<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const begin = (): Promise<T> => {
    const started: Promise<T> = read().finally(() => {
      if (running === started) running = undefined;
    });
    running = started;
    return started;
  };
  const settled = () => undefined;
  return () => {
    if (running === undefined) return begin();
    if (queued === undefined) {
      queued = running.then(settled, settled).then(() => {
        queued = undefined;
        return begin();
      });
    }
    return queued;
  };
}
