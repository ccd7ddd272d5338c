import { ApiError } from "./problem.js";

/** A parsed `fields=` mask: each selected name maps to its nested mask (null = whole value). */
export type FieldMask = Map<string, FieldMask | null>;
/** What a mask may name: leaf fields map to true, objects to their own shape. */
export type FieldShape = { [name: string]: true | FieldShape };

function describe(shape: FieldShape, prefix = ""): string[] {
  return Object.entries(shape).flatMap(([name, inner]) => (inner === true ? [prefix + name] : [prefix + name, ...describe(inner, `${prefix}${name}.`)]));
}

/** Adds one dotted path; an unknown name is collected in `unknown` so that one answer lists them all, as insights-rbac does. */
function addPath(mask: FieldMask, path: string[], shape: FieldShape, field: string, allowed: () => string, unknown: string[], done: string[] = []): void {
  const [head, ...rest] = path;
  const inner = head === undefined ? undefined : shape[head];
  if (head === undefined || head === "" || inner === undefined) {
    unknown.push(`Unknown field: '${[...done, ...path].join(".")}'`);
    return;
  }
  if (rest.length === 0) {
    mask.set(head, null);
    return;
  }
  if (inner === true) throw new ApiError(400, [{ message: `Field '${head}' has no sub-fields. Valid fields: ${allowed()}.`, field }]);
  let child = mask.get(head);
  if (child === null) return;
  if (child === undefined) {
    child = new Map();
    mask.set(head, child);
  }
  addPath(child, rest, inner, field, allowed, unknown, [...done, head]);
}

/** Splits on commas that are not inside parentheses. */
function splitTop(text: string, field: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === "(") depth += 1;
    else if (c === ")") depth -= 1;
    if (depth < 0) throw new ApiError(400, [{ message: "Unbalanced parentheses in the field mask.", field }]);
    if (c === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) throw new ApiError(400, [{ message: "Unbalanced parentheses in the field mask.", field }]);
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

/** Parses `subject(id,group.name),role(name),last_modified` against the allowed shape. */
export function parseFieldMask(text: string, shape: FieldShape, field = "fields"): FieldMask {
  const mask: FieldMask = new Map();
  const allowed = () => describe(shape).join(", ");
  const unknown: string[] = [];
  const walk = (expr: string, prefix: string[]) => {
    for (const part of splitTop(expr, field)) {
      const open = part.indexOf("(");
      if (open === -1) {
        addPath(mask, [...prefix, ...part.split(".")], shape, field, allowed, unknown);
      } else {
        if (!part.endsWith(")")) throw new ApiError(400, [{ message: `Malformed field mask near '${part}'.`, field }]);
        walk(part.slice(open + 1, -1), [...prefix, ...part.slice(0, open).trim().split(".")]);
      }
    }
  };
  walk(text, []);
  if (unknown.length > 0) throw new ApiError(400, [{ message: `Invalid field(s): ${unknown.join(", ")}. Valid fields: ${allowed()}.`, field }]);
  if (mask.size === 0) throw new ApiError(400, [{ message: `The field mask is empty. Valid fields: ${allowed()}.`, field }]);
  return mask;
}

/** Keeps only what the mask selects; arrays are projected element-wise. */
export function applyFieldMask(value: unknown, mask: FieldMask | null): unknown {
  if (mask === null || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => applyFieldMask(item, mask));
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, inner] of mask) {
    if (name in source && source[name] !== undefined) out[name] = applyFieldMask(source[name], inner);
  }
  return out;
}
