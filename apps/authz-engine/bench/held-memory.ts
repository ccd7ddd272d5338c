// What the memory benchmarks (memory.ts, churn.ts) measure: the bytes this thread's heap and its
// array buffers hold after full collections, so garbage not yet collected does not count.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Heap used plus array buffers after two full collections, bytes. */
export function held(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

export const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
