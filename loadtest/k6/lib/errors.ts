// Error accounting shared by every k6 script, free of k6 imports so Node tests can run it.
// An exception inside an iteration (connection refused, a stream error, a bad answer) aborts the
// iteration before it records anything; k6 then only logs it and a threshold on an error rate
// with no samples passes. Every iteration therefore runs through one of these wrappers.

/** The part of a k6 Rate metric the wrappers use. */
export interface ErrorRate {
  add(failed: boolean): void;
}

/** Runs one iteration; `false` from the body or a thrown exception counts as one error. */
export function countingErrors(errors: ErrorRate, body: () => boolean): void {
  let ok = false;
  try {
    ok = body();
  } catch (error) {
    console.error(String(error));
  }
  errors.add(!ok);
}

/** The same for an async iteration (a rejected promise counts as one error). */
export async function countingErrorsAsync(errors: ErrorRate, body: () => Promise<boolean>): Promise<void> {
  let ok = false;
  try {
    ok = await body();
  } catch (error) {
    console.error(String(error));
  }
  errors.add(!ok);
}
