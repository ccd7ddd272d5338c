// Recursive-descent parser for zed schema text. Operator precedence follows SpiceDB's parser:
// arrows bind tightest, then `+`, then `&`, then `-` (loosest); all are left-associative.
import { SchemaError, type EvaluatorErrorCode } from "../errors.js";
import type { AllowedSubjectAst, DefinitionAst, ExpressionAst, PermissionAst, RelationAst, SchemaAst } from "./ast.js";
import { tokenize, type Token } from "./lexer.js";

const BINARY_LEVELS: Array<{ op: string; kind: "union" | "intersection" | "exclusion" }> = [
  { op: "-", kind: "exclusion" },
  { op: "&", kind: "intersection" },
  { op: "+", kind: "union" },
];

/** Words SpiceDB's lexer reserves: none may name a definition, relation or permission. */
const KEYWORDS = new Set(["definition", "caveat", "relation", "permission", "nil", "with"]);

/** SpiceDB's `use` flags; only `expiration` is supported here. */
const USE_FLAGS = new Set(["expiration", "import", "partial", "self", "typechecking"]);

class Parser {
  private pos = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly fileName: string | undefined,
  ) {}

  parseSchema(): SchemaAst {
    const definitions: DefinitionAst[] = [];
    let useExpiration = false;
    while (this.peek().kind !== "eof") {
      const t = this.peek();
      if (t.kind === "name" && t.text === "definition") definitions.push(this.parseDefinition());
      else if (t.kind === "name" && t.text === "caveat") this.unsupported(t, "unsupported-caveat", "caveats are not supported");
      else if (t.kind === "name" && t.text === "use") {
        this.next();
        const flag = this.expectName("a feature after 'use'");
        if (!USE_FLAGS.has(flag.text)) {
          throw new SchemaError("unexpected-token", `unknown use flag '${flag.text.slice(0, 64)}' (SpiceDB's are ${[...USE_FLAGS].join(", ")})`, flag.line, flag.column, this.fileName);
        }
        if (flag.text !== "expiration") this.unsupported(flag, "unsupported-use", `'use ${flag.text}' is not supported (only 'use expiration' is)`);
        useExpiration = true;
      } else if (t.kind === "name" && (t.text === "partial" || t.text === "import")) {
        // Composable schemas: SpiceDB takes them only after 'use partial' / 'use import'.
        this.unsupported(t, "unsupported-syntax", `'${t.text}' (composable schemas) is not supported; SpiceDB also requires 'use ${t.text}' before it`);
      } else this.fail(t, "expected 'definition'");
    }
    const ast: SchemaAst = { definitions };
    if (useExpiration) ast.useExpiration = true;
    if (this.fileName !== undefined) ast.fileName = this.fileName;
    return ast;
  }

  private parseDefinition(): DefinitionAst {
    const keyword = this.next();
    const name = this.expectDeclaredName("a definition name");
    this.expectPunct("{");
    const members: Array<RelationAst | PermissionAst> = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === "punct" && t.text === "}") {
        this.next();
        break;
      }
      if (t.kind === "name" && t.text === "relation") members.push(this.parseRelation());
      else if (t.kind === "name" && t.text === "permission") members.push(this.parsePermission());
      else this.fail(t, "expected 'relation', 'permission' or '}'");
    }
    return { name: name.text, line: keyword.line, column: keyword.column, members };
  }

  private parseRelation(): RelationAst {
    const keyword = this.next();
    const name = this.expectDeclaredName("a relation name");
    this.expectPunct(":");
    const allowed: AllowedSubjectAst[] = [this.parseAllowedSubject()];
    while (this.isPunct("|")) {
      this.next();
      allowed.push(this.parseAllowedSubject());
    }
    this.endStatement();
    return { kind: "relation", name: name.text, line: keyword.line, column: keyword.column, allowed };
  }

  private parseAllowedSubject(): AllowedSubjectAst {
    const type = this.expectName("a subject type");
    const subject: AllowedSubjectAst = { type: type.text, wildcard: false, line: type.line, column: type.column };
    if (this.isPunct("#")) {
      this.next();
      subject.relation = this.expectName("a subject relation").text;
    } else if (this.isPunct(":")) {
      this.next();
      this.expectPunct("*");
      subject.wildcard = true;
    }
    if (this.peek().kind === "name" && this.peek().text === "with") {
      this.next();
      const trait = this.expectName("'expiration' or a caveat name after 'with'");
      if (trait.text !== "expiration") this.unsupported(trait, "unsupported-caveat", `caveats are not supported (found caveat '${trait.text}')`);
      if (this.peek().kind === "name" && this.peek().text === "and") this.unsupported(this.peek(), "unsupported-caveat", "caveats are not supported (found 'and' after 'expiration')");
      subject.expiration = true;
    }
    return subject;
  }

  private parsePermission(): PermissionAst {
    const keyword = this.next();
    const name = this.expectDeclaredName("a permission name");
    this.expectPunct("=");
    const expression = this.parseBinary(0);
    this.endStatement();
    return { kind: "permission", name: name.text, line: keyword.line, column: keyword.column, expression };
  }

  private parseBinary(level: number): ExpressionAst {
    const spec = BINARY_LEVELS[level];
    if (!spec) return this.parsePrimary();
    let left = this.parseBinary(level + 1);
    while (this.isPunct(spec.op)) {
      const op = this.next();
      const right = this.parseBinary(level + 1);
      left = { kind: spec.kind, left, right, line: op.line, column: op.column };
    }
    return left;
  }

  private parsePrimary(): ExpressionAst {
    const t = this.peek();
    if (t.kind === "punct" && t.text === "(") {
      this.next();
      const inner = this.parseBinary(0);
      this.expectPunct(")");
      return inner;
    }
    const name = this.expectName("a relation, permission, 'nil' or '('");
    if (name.text === "nil") return { kind: "nil", line: name.line, column: name.column };
    if (name.text.includes("/")) this.fail(name, "expected a relation or permission name, not a type");
    if (name.text === "self") this.unsupported(name, "unsupported-self", "'self' is not supported");
    if (this.isPunct("->")) {
      this.next();
      const target = this.expectName("a relation or permission after '->'");
      return { kind: "arrow", tupleset: name.text, target: target.text, line: name.line, column: name.column };
    }
    if (this.isPunct(".")) {
      const fn = this.tokens[this.pos + 1];
      const what = fn?.kind === "name" ? `'.${fn.text}()'` : "'.any()'/'.all()'";
      this.unsupported(this.peek(), "unsupported-arrow-function", `${what} arrows are not supported`);
    }
    return { kind: "ref", name: name.text, line: name.line, column: name.column };
  }

  private peek(): Token {
    return this.tokens[this.pos]!;
  }

  private next(): Token {
    const t = this.tokens[this.pos]!;
    if (t.kind !== "eof") this.pos++;
    return t;
  }

  private isPunct(text: string): boolean {
    const t = this.peek();
    return t.kind === "punct" && t.text === text;
  }

  private expectPunct(text: string): Token {
    const t = this.peek();
    if (t.kind !== "punct" || t.text !== text) this.fail(t, `expected '${text}'`);
    return this.next();
  }

  private expectName(what: string): Token {
    const t = this.peek();
    if (t.kind !== "name") this.fail(t, `expected ${what}`);
    return this.next();
  }

  /** A name being declared: any name but a keyword. */
  private expectDeclaredName(what: string): Token {
    const t = this.expectName(what);
    if (KEYWORDS.has(t.text)) throw new SchemaError("invalid-name", `'${t.text}' is a keyword and cannot be ${what}`, t.line, t.column, this.fileName);
    return t;
  }

  /** A relation or permission ends at a line end, a ';' or the end of input (`definition d { relation r: user }` is refused, as by SpiceDB). */
  private endStatement(): void {
    const t = this.peek();
    if (t.kind === "punct" && t.text === ";") this.next();
    else if (!t.newlineBefore && t.kind !== "eof") this.fail(t, "expected the end of the statement (a line end or ';')");
  }

  private fail(t: Token, expected: string): never {
    if (t.kind === "bad") throw new SchemaError("unexpected-character", `unexpected character '${t.text}'`, t.line, t.column, this.fileName);
    const found = t.kind === "eof" ? "end of input" : `'${t.text}'`;
    throw new SchemaError("unexpected-token", `${expected}, found ${found}`, t.line, t.column, this.fileName);
  }

  private unsupported(t: Token, code: EvaluatorErrorCode, message: string): never {
    throw new SchemaError(code, message, t.line, t.column, this.fileName);
  }
}

/** Parses zed schema text into a syntax tree; throws SchemaError with line:column on malformed input. */
export function parseSchema(text: string, fileName?: string): SchemaAst {
  return new Parser(tokenize(text, fileName), fileName).parseSchema();
}
