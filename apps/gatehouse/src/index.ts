// Public entry of @gatehouse/gatehouse (the CLI and all-in-one server).
export { buildProgram } from "./program.js";
