// Child process holding one embedded SpiceDB for `SpiceDbProcess` (its Check runs through FFI on the
// calling thread and cannot be cancelled, so the parent kills this process when a call stalls).
import type { Relationship } from "../../src/index.js";
import { SpiceDbOracle } from "./spicedb-oracle.js";

interface Request {
  id: number;
  op: "start" | "stall" | "check" | "lookupResources" | "lookupSubjects";
  args: unknown[];
}

let oracle: SpiceDbOracle | undefined;

process.on("message", (message: Request) => {
  void handle(message).then(
    (value) => process.send!({ id: message.id, ok: true, value }),
    (error: unknown) => process.send!({ id: message.id, ok: false, message: String((error as Error)?.message ?? error) }),
  );
});

async function handle({ op, args }: Request): Promise<unknown> {
  if (op === "start") {
    await oracle?.close();
    oracle = undefined;
    oracle = await SpiceDbOracle.start(args[0] as string, args[1] as Relationship[]);
    return null;
  }
  if (op === "stall") {
    // Blocks this thread as an uncancellable SpiceDB Check does (the restart test's stalled call).
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, args[0] as number);
    return null;
  }
  if (!oracle) throw new Error("no SpiceDB started");
  const call = oracle[op] as (...a: unknown[]) => Promise<unknown>;
  return call.apply(oracle, args);
}
