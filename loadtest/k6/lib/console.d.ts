// k6 provides console at run time, but @types/k6 does not declare it.
declare const console: { log(...args: unknown[]): void; warn(...args: unknown[]): void; error(...args: unknown[]): void };
