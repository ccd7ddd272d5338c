// Wall-clock time with sub-millisecond resolution, for comparing against commit timestamps.
//
// `Date.now()` has whole-millisecond resolution, too coarse for lags that are often below 1 ms;
// `performance.timeOrigin + performance.now()` is finer but monotonic, so it drifts away from the
// wall clock when the system clock is slewed or stepped (NTP). This keeps a monotonic reading
// anchored to the wall clock: whenever the two disagree by more than Date.now()'s own truncation
// (the true time lies in [Date.now(), Date.now() + 1)), the anchor moves back into that window.
// The result is within 1 ms of the system clock and keeps the monotonic clock's resolution.

let offset = Date.now() - performance.now();

/** Milliseconds since the epoch, fractional, within 1 ms of `Date.now()`'s clock. */
export function wallClockMs(): number {
  const mono = performance.now();
  const coarse = Date.now();
  const precise = offset + mono;
  if (precise < coarse) offset = coarse - mono;
  else if (precise >= coarse + 1) offset = coarse + 0.999 - mono;
  return offset + mono;
}
