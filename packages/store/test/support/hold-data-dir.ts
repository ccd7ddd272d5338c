// A second process for the data-directory lock tests: opens a store on argv[2], prints one JSON
// line ({"opened": pid} or {"refused": message}), writes a workspace when asked, and closes the
// store when its stdin ends.
import { openStore } from "../../src/index.js";

const dataDir = process.argv[2]!;
try {
  const store = await openStore({ dataDir });
  process.stdout.write(`${JSON.stringify({ opened: process.pid })}\n`);
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (line: string) => {
    for (const org of line.split("\n").filter(Boolean)) {
      store.tenants.bootstrap(org).then(
        () => process.stdout.write(`${JSON.stringify({ bootstrapped: org })}\n`),
        (e: unknown) => process.stdout.write(`${JSON.stringify({ failed: String(e) })}\n`),
      );
    }
  });
  process.stdin.on("end", () => {
    void store.close().then(() => process.exit(0));
  });
} catch (e) {
  process.stdout.write(`${JSON.stringify({ refused: e instanceof Error ? e.message : String(e) })}\n`);
  process.exit(3);
}
