import type { ExplainResult } from "./explain.js";

/** What a user may see about their own access: no other member, no raw tree, no API calls to copy. */
export interface SelfExplanation {
  allowed: boolean;
  revision: number;
  consistency_token: string;
  subject: ExplainResult["subject"];
  resource: ExplainResult["resource"];
  permission: ExplainResult["permission"];
  grants: ExplainResult["grants"];
  summary: string;
  /** For a denial: what to ask an administrator for (the narrowest fix, in words), one line each. */
  ask: string[];
}

const nameOf = (ref: { id: string; name: string | null }) => ref.name ?? ref.id;

/**
 * The caller's own explanation, cut to what is theirs: the fixes' previews name other members of
 * a group and the tree names bindings and groups by id, so only the words of the fix are kept.
 */
export function selfView(result: ExplainResult): SelfExplanation {
  return {
    allowed: result.allowed,
    revision: result.revision,
    consistency_token: result.consistency_token,
    subject: result.subject,
    resource: result.resource,
    permission: result.permission,
    grants: result.grants,
    summary: result.summary,
    ask: result.fixes.map((fix) => {
      const role = fix.role ? `role ${nameOf(fix.role)}` : `a role holding exactly ${fix.new_role?.permissions.join(", ")}`;
      const to = fix.subject.type === "group" ? `your group ${nameOf(fix.subject)}` : "you";
      return `Ask an organisation administrator to bind ${role} to ${to} on ${nameOf(fix.resource)}.`;
    }),
  };
}
