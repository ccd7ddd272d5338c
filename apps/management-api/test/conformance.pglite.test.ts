// insights-rbac's own view tests replayed on PGlite (the cases and runner: ./conformance/).
import { describeConformance } from "./conformance/suite.js";

describeConformance("pglite");
