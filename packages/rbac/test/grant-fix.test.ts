import { describe, expect, it } from "vitest";
import { planGrantFix, type BindingLevel, type FixRole, type GrantFix } from "@gatehouse/rbac";
import table from "./data/grant-fixes.json" with { type: "json" };

const roles = table.roles as FixRole[];
const levels = table.levels as Record<string, BindingLevel>;

/** The fix as the case files write it: roles by id. */
function shape(fix: GrantFix | null): unknown {
  if (!fix) return null;
  const role =
    fix.role.kind === "existing" ? { kind: "existing", id: fix.role.role.id } : { kind: "new", name: fix.role.name, permissions: fix.role.permissions, basedOn: fix.role.basedOn?.id ?? null };
  return { role, groupId: fix.groupId, alsoGrants: fix.alsoGrants };
}

describe("the narrowest fix for a denial", () => {
  it.each(table.cases)("$name", (c) => {
    const fix = planGrantFix({
      needed: c.needed,
      level: c.level as BindingLevel,
      roles,
      held: c.held,
      catalogue: table.catalogue,
      levelOf: (p) => levels[p] ?? null,
    });
    expect(shape(fix)).toEqual(c.fix);
  });
});
