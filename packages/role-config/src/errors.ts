// The single error class of @gatehouse/role-config. It carries every problem found, each naming
// the file (relative to the package root) and, for JSON, the path inside it.

export type RoleConfigErrorCode =
  | "unknown-environment"
  | "read-failed"
  | "invalid-json"
  | "invalid-role-file"
  | "invalid-permission-file"
  | "invalid-migrated-apps"
  | "schema-compile-failed"
  | "duplicate-role"
  | "unknown-permission"
  | "unmapped-permission"
  | "unmodelled-permission";

export interface RoleConfigIssue {
  code: RoleConfigErrorCode;
  file: string;
  /** JSON path (`$.roles[2].access[0].permission`) or `line:column` for schema sources. */
  path: string;
  message: string;
}

export const formatIssue = (i: RoleConfigIssue): string => `${i.file} ${i.path}: ${i.code} ${i.message}`;

export class RoleConfigError extends Error {
  readonly code: RoleConfigErrorCode;
  readonly issues: readonly RoleConfigIssue[];

  constructor(issues: readonly RoleConfigIssue[]) {
    const lines = issues.map(formatIssue);
    super(issues.length === 1 ? lines[0]! : `${issues.length} problems in the role configuration:\n${lines.join("\n")}`);
    this.name = "RoleConfigError";
    this.code = issues[0]?.code ?? "read-failed";
    this.issues = issues;
  }
}
