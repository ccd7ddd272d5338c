export { type FieldError, type ProblemBody, type ProblemOptions, PROBLEM_TYPE_PREFIX, problemBody, problemTitle, problemType, writeProblem } from "./problem.js";
export { type Refusal, authRefusal } from "./auth-refusal.js";
