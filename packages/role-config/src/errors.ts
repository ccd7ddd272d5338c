// The single error class of @gatehouse/role-config. It carries every problem found, each naming
// the file (prefixed with the configuration directory's name) and, for JSON, the path inside it.

export type RoleConfigErrorCode =
  | "unknown-environment"
  | "read-failed"
  | "invalid-json"
  | "invalid-role-file"
  | "invalid-permission-file"
  | "invalid-app-list"
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

  /** The configuration directory, when the problems belong to one. */
  readonly dir: string | undefined;

  constructor(issues: readonly RoleConfigIssue[], dir?: string) {
    const lines = issues.map(formatIssue);
    const where = dir ? ` ${dir}` : "";
    super(issues.length === 1 ? `${lines[0]!}${where ? ` (in${where})` : ""}` : `${issues.length} problems in the role configuration${where}:\n${lines.join("\n")}`);
    this.dir = dir;
    this.name = "RoleConfigError";
    this.code = issues[0]?.code ?? "read-failed";
    this.issues = issues;
  }
}
