/** Stable codes of the migration commands' errors. */
export type MigrationErrorCode = "file-not-found" | "invalid-json" | "invalid-export" | "invalid-options" | "invalid-input" | "invalid-facts" | "schema-unavailable";

/** Error of the advise / migrate / parity commands; the CLI prints `message` and exits non-zero. */
export class MigrationError extends Error {
  readonly code: MigrationErrorCode;

  constructor(code: MigrationErrorCode, message: string) {
    super(message);
    this.name = "MigrationError";
    this.code = code;
  }
}
