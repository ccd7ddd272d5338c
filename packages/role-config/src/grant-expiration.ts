// Time-bound grants (a Gatehouse extension): a role binding's subjects may expire. The evaluator
// honours `expiresAt` only on subject types declared `with expiration` under `use expiration`,
// which KSL cannot express (and the generated schema.zed must stay what KSL builds, as upstream).
// So the model every service evaluates is compiled from the schema with that one declaration
// added: `rbac/role_binding#t_subject` allows each of its subject types also with expiration.
import { compileSchema, parseSchema, type Model, type SchemaAst } from "@gatehouse/evaluator";

export const EXPIRING_GRANT = { type: "rbac/role_binding", relation: "t_subject" } as const;

/** The schema with expiration enabled on the binding subject relation (unchanged if it has none). */
export function withGrantExpiration(ast: SchemaAst): SchemaAst {
  let found = false;
  const definitions = ast.definitions.map((d) => {
    if (d.name !== EXPIRING_GRANT.type) return d;
    return {
      ...d,
      members: d.members.map((m) => {
        if (m.kind !== "relation" || m.name !== EXPIRING_GRANT.relation) return m;
        found = true;
        // Each type with and without an expiry: a type allowed only `with expiration` refuses permanent grants.
        return { ...m, allowed: m.allowed.flatMap((a) => (a.wildcard || a.expiration ? [a] : [a, { ...a, expiration: true }])) };
      }),
    };
  });
  return found ? { ...ast, useExpiration: true, definitions } : ast;
}

/** The evaluator model of a role-configuration schema (zed text or tree), with expiring grants. */
export function compileRoleSchema(schema: string | SchemaAst): Model {
  return compileSchema(withGrantExpiration(typeof schema === "string" ? parseSchema(schema) : schema));
}
