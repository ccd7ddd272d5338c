// Process entry. Restarts itself once with glibc's huge pages for large allocations when they are
// not set (GLIBC_TUNABLES is read only at process start; GATEHOUSE_HUGE_PAGES=false opts out), then
// runs the engine (run.ts).
import { relaunchWithHugePages } from "@gatehouse/config";

if (!relaunchWithHugePages()) await import("./run.js");
