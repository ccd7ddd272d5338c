// Recursive-descent KSL parser producing the IR. Syntax errors are reported and the parser
// re-synchronises at the next relation or declaration, so one run reports every error.
import type { DiagnosticSink, SourceLocation } from "./diagnostics.js";
import type {
  Cardinality,
  DynamicBody,
  DynamicName,
  DynamicRelation,
  DynamicType,
  ExtensionDefinition,
  ExtensionReference,
  NamespaceModule,
  RelationBody,
  RelationDecl,
  TypeDecl,
  TypeReference,
  Visibility,
} from "./ir.js";
import { tokenize, type Token } from "./lexer.js";

const CARDINALITIES = new Set(["AtMostOne", "ExactlyOne", "AtLeastOne", "Any"]);
const ACCESS = new Set(["public", "internal", "private"]);
/** Keywords that start a construct; finding one where a name is expected is not a naming problem. */
const STRUCTURAL = new Set(["relation", "type", "extension", "import", "namespace", "allow_duplicates", ...ACCESS]);

/** Thrown inside the parser to unwind to the nearest recovery point (already reported). */
class SyntaxFailure extends Error {}

function describe(t: Token): string {
  if (t.kind === "eof") return "end of file";
  if (t.kind === "punct") return `'${t.text}'`;
  if (t.kind === "keyword") return `keyword '${t.text}'`;
  return `'${t.escaped ? "#" : ""}${t.text}'`;
}

export function parseKsl(text: string, file: string, sink: DiagnosticSink): NamespaceModule | undefined {
  return new Parser(tokenize(text, file, sink), file, sink).parseFile();
}

class Parser {
  private pos = 0;
  private readonly imports = new Set<string>();

  constructor(
    private readonly tokens: Token[],
    private readonly file: string,
    private readonly sink: DiagnosticSink,
  ) {}

  // ---- token helpers -------------------------------------------------------------------------
  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)]!;
  }
  private next(): Token {
    const t = this.peek();
    if (t.kind !== "eof") this.pos++;
    return t;
  }
  private loc(t: Token = this.peek()): SourceLocation {
    return { file: this.file, line: t.line, column: t.column };
  }
  private isPunct(c: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === "punct" && t.text === c;
  }
  private isKeyword(k: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === "keyword" && t.text === k;
  }
  private fail(message: string, at: Token = this.peek(), code: "syntax-error" | "invalid-argument-value" = "syntax-error"): never {
    this.sink.report(code, this.loc(at), message);
    throw new SyntaxFailure(message);
  }
  private expectPunct(c: string, context: string): Token {
    if (!this.isPunct(c)) this.fail(`expected '${c}' ${context}, found ${describe(this.peek())}`);
    return this.next();
  }
  private expectKeyword(k: string, context: string): Token {
    if (!this.isKeyword(k)) this.fail(`expected '${k}' ${context}, found ${describe(this.peek())}`);
    return this.next();
  }
  private expectName(context: string): Token {
    const t = this.peek();
    if (t.kind !== "name") {
      const hint = t.kind === "keyword" && !STRUCTURAL.has(t.text) ? ` (escape keywords used as names with '#', e.g. '#${t.text}')` : "";
      this.fail(`expected a name ${context}, found ${describe(t)}${hint}`);
    }
    return this.next();
  }
  private parseAccess(): Visibility | undefined {
    const t = this.peek();
    if (t.kind === "keyword" && ACCESS.has(t.text)) {
      this.next();
      return t.text as Visibility;
    }
    return undefined;
  }

  // ---- file ----------------------------------------------------------------------------------
  parseFile(): NamespaceModule | undefined {
    let name: string;
    let nsLoc: SourceLocation;
    try {
      this.expectKeyword("version", "at the start of the file");
      if (this.peek().kind !== "version-number") this.fail(`expected a version number such as 0.1, found ${describe(this.peek())}`);
      this.next();
      nsLoc = this.loc(this.expectKeyword("namespace", "after the version line"));
      name = this.expectName("after 'namespace'").text;
      while (this.isKeyword("import")) {
        this.next();
        this.imports.add(this.expectName("after 'import'").text);
      }
    } catch (e) {
      if (e instanceof SyntaxFailure) return undefined; // without a header nothing else is meaningful
      throw e;
    }
    const module: NamespaceModule = {
      name,
      imports: [...this.imports],
      types: [],
      extensions: [],
      extensionReferences: [],
      loc: nsLoc,
    };
    let pending: ExtensionReference[] = [];
    let declarations = 0;
    while (this.peek().kind !== "eof") {
      const start = this.pos;
      try {
        if (this.isPunct("@")) {
          const decorator = this.parseDecorator();
          if (this.isPunct(";")) {
            if (pending.length > 0) this.fail("expected 'type' after decorators (only a single decorator may end with ';')");
            this.next();
            module.extensionReferences.push(decorator);
            declarations++;
          } else {
            pending.push(decorator);
          }
          continue;
        }
        const access = this.parseAccess();
        if (this.isKeyword("type")) {
          module.types.push(this.parseType(access, pending));
        } else if (this.isKeyword("extension")) {
          if (pending.length > 0) this.fail("decorators cannot be applied to an extension", this.peek());
          module.extensions.push(this.parseExtension(access));
        } else {
          this.fail(`expected 'type', 'extension' or a decorator, found ${describe(this.peek())}`);
        }
        pending = [];
        declarations++;
        if (this.isPunct(";")) this.next();
      } catch (e) {
        if (!(e instanceof SyntaxFailure)) throw e;
        pending = [];
        this.syncTopLevel(start);
      }
    }
    if (pending.length > 0) {
      this.sink.report("syntax-error", pending[pending.length - 1]!.loc, "a namespace-level decorator must end with ';'");
    } else if (declarations === 0) {
      this.sink.report("syntax-error", this.loc(), "a KSL file needs at least one declaration");
    }
    return module;
  }

  /** Skips to the next top-level declaration start, outside any braces. */
  private syncTopLevel(start: number): void {
    if (this.pos === start) this.next();
    let depth = 0;
    for (let i = start; i < this.pos; i++) {
      const t = this.tokens[i]!;
      if (t.kind === "punct" && t.text === "{") depth++;
      if (t.kind === "punct" && t.text === "}") depth = Math.max(0, depth - 1);
    }
    while (this.peek().kind !== "eof") {
      const t = this.peek();
      if (depth === 0 && (this.isPunct("@") || (t.kind === "keyword" && (t.text === "type" || t.text === "extension" || ACCESS.has(t.text))))) return;
      if (this.isPunct("{")) depth++;
      if (this.isPunct("}")) depth = Math.max(0, depth - 1);
      this.next();
    }
  }

  // ---- decorators ----------------------------------------------------------------------------
  private parseDecorator(): ExtensionReference {
    const at = this.next(); // '@'
    const segments = [this.expectName("after '@'").text];
    while (this.isPunct(".")) {
      this.next();
      segments.push(this.expectName("in the decorator name").text);
    }
    if (segments.length > 2) this.fail(`decorator '${segments.join(".")}' must be 'extension' or 'namespace.extension'`, at);
    this.expectPunct("(", "after the decorator name");
    const params: Record<string, string> = {};
    if (!this.isPunct(")")) {
      for (;;) {
        const key = this.expectName("as a decorator argument name");
        this.expectPunct(":", "after the argument name");
        if (!this.isPunct("'")) this.fail(`argument '${key.text}' needs a value in single quotes`, this.peek(), "invalid-argument-value");
        this.next();
        const value = this.peek();
        if (value.kind !== "name" && value.kind !== "keyword" && value.kind !== "version-number") {
          this.fail(`argument '${key.text}' must be exactly one identifier, keyword or version number in single quotes`, value, "invalid-argument-value");
        }
        this.next();
        if (!this.isPunct("'")) {
          this.fail(`argument '${key.text}' must be exactly one identifier, keyword or version number in single quotes`, this.peek(), "invalid-argument-value");
        }
        this.next();
        if (Object.hasOwn(params, key.text)) {
          this.sink.report("duplicate-argument", this.loc(key), `argument '${key.text}' is given more than once`);
        }
        params[key.text] = value.text;
        if (!this.isPunct(",")) break;
        this.next();
      }
    }
    this.expectPunct(")", "to close the decorator arguments");
    const [first, second] = segments;
    return second === undefined ? { name: first!, params, loc: this.loc(at) } : { namespace: first!, name: second, params, loc: this.loc(at) };
  }

  private parseDecorators(): ExtensionReference[] {
    const out: ExtensionReference[] = [];
    while (this.isPunct("@")) {
      out.push(this.parseDecorator());
      if (this.isPunct(";")) this.fail("a decorator on a type or relation takes no ';'");
    }
    return out;
  }

  // ---- types ---------------------------------------------------------------------------------
  private parseType(access: Visibility | undefined, decorators: ExtensionReference[]): TypeDecl {
    const kw = this.next(); // 'type'
    const name = this.expectName("after 'type'").text;
    this.expectPunct("{", `to open type '${name}'`);
    const type: TypeDecl = { name, visibility: access ?? "public", relations: [], extensions: decorators, loc: this.loc(kw) };
    while (!this.isPunct("}")) {
      if (this.peek().kind === "eof" || this.isKeyword("type") || this.isKeyword("extension")) {
        this.fail(`expected '}' to close type '${name}', found ${describe(this.peek())}`);
      }
      const start = this.pos;
      try {
        type.relations.push(this.parseRelation());
      } catch (e) {
        if (!(e instanceof SyntaxFailure)) throw e;
        this.syncRelation(start);
      }
    }
    this.next();
    return type;
  }

  /** Skips to the next relation (or the end of the type) after an error inside a type body. */
  private syncRelation(start: number): void {
    if (this.pos === start) this.next();
    while (this.peek().kind !== "eof") {
      const t = this.peek();
      if (this.isPunct("@") || this.isPunct("}")) return;
      if (t.kind === "keyword" && (t.text === "relation" || t.text === "type" || t.text === "extension" || t.text === "allow_duplicates" || ACCESS.has(t.text))) return;
      this.next();
    }
  }

  private parseRelation(): RelationDecl {
    const decorators = this.parseDecorators();
    const access = this.parseAccess();
    const kw = this.expectKeyword("relation", "in a type body");
    const name = this.expectName("after 'relation'").text;
    this.expectPunct(":", `after relation name '${name}'`);
    const body = toStaticBody(this.parseBody(false));
    return { name, visibility: access ?? "public", body, extensions: decorators, loc: this.loc(kw) };
  }

  // ---- bodies --------------------------------------------------------------------------------
  private parseBody(templates: boolean): DynamicBody {
    let left = this.parseUnion(templates);
    while (this.isKeyword("unless")) {
      const op = this.next();
      left = { kind: "except", left, right: this.parseUnion(templates), loc: this.loc(op) };
    }
    return left;
  }
  private parseUnion(templates: boolean): DynamicBody {
    let left = this.parseIntersect(templates);
    while (this.isKeyword("or")) {
      const op = this.next();
      left = { kind: "union", left, right: this.parseIntersect(templates), loc: this.loc(op) };
    }
    return left;
  }
  private parseIntersect(templates: boolean): DynamicBody {
    let left = this.parsePrimary(templates);
    while (this.isKeyword("and")) {
      const op = this.next();
      left = { kind: "intersect", left, right: this.parsePrimary(templates), loc: this.loc(op) };
    }
    return left;
  }
  private parsePrimary(templates: boolean): DynamicBody {
    const start = this.peek();
    if (this.isPunct("(")) {
      this.next();
      const inner = this.parseBody(templates);
      this.expectPunct(")", "to close the parenthesised expression");
      return inner;
    }
    if (this.isPunct("[")) return this.parseBox();
    const relation = this.parseName(templates, "in a relation body");
    if (!this.isPunct(".")) return { kind: "reference", relation, loc: this.loc(start) };
    this.next();
    const subRelation = this.parseName(templates, "after '.' in a traversal");
    if (this.isPunct(".")) this.fail("a traversal has exactly one hop ('relation.sub_relation')");
    return { kind: "nested_reference", relation, subRelation, loc: this.loc(start) };
  }

  private parseBox(): DynamicBody {
    const open = this.next(); // '['
    let cardinality: Cardinality = "Any";
    const t = this.peek();
    if (t.kind === "keyword" && CARDINALITIES.has(t.text)) {
      this.next();
      cardinality = t.text as Cardinality;
    }
    const types = [this.parseTypeReference()];
    while (this.isKeyword("or")) {
      this.next();
      types.push(this.parseTypeReference());
    }
    this.expectPunct("]", "to close the type list");
    return { kind: "self", types, cardinality, loc: this.loc(open) };
  }

  /** `name(.name)*` inside a box; the first segment is a namespace only when it is imported. */
  private parseTypeReference(): TypeReference {
    const first = this.expectName("as a type in '[...]'");
    const segments = [first.text];
    while (this.isPunct(".")) {
      this.next();
      segments.push(this.expectName("in a type reference").text);
    }
    const loc = this.loc(first);
    if (segments.length === 1 && first.text === "bool" && !first.escaped) {
      return { namespace: "rbac", name: "principal", all: true, loc };
    }
    const [a, b, c] = segments;
    if (b !== undefined && this.imports.has(a!)) {
      return c === undefined ? { namespace: a!, name: b, loc } : { namespace: a!, name: b, subRelation: c, loc };
    }
    return b === undefined ? { name: a!, loc } : { name: a!, subRelation: b, loc };
  }

  private parseName(templates: boolean, context: string): DynamicName {
    const t = this.peek();
    if (t.kind === "name") {
      this.next();
      return { kind: "literal", value: t.text };
    }
    if (templates && this.isPunct("$")) return this.parseParam();
    if (templates && this.isPunct("`")) {
      this.next();
      const segments: DynamicName[] = [];
      while (!this.isPunct("`")) {
        if (this.isPunct("$")) segments.push(this.parseParam());
        else segments.push({ kind: "literal", value: this.expectName("or '${param}' inside a backtick template").text });
      }
      this.next();
      if (segments.length === 0) this.fail("an empty backtick template is not a name", t);
      return { kind: "template", segments };
    }
    if (!templates && (this.isPunct("$") || this.isPunct("`"))) {
      this.fail("template names ('${param}', backticks) are only allowed inside an extension");
    }
    return { kind: "literal", value: this.expectName(context).text };
  }

  private parseParam(): DynamicName {
    this.next(); // '$'
    this.expectPunct("{", "after '$'");
    const param = this.expectName("as a template parameter").text;
    this.expectPunct("}", "to close the template parameter");
    return { kind: "param", param };
  }

  // ---- extensions ----------------------------------------------------------------------------
  private parseExtension(access: Visibility | undefined): ExtensionDefinition {
    const kw = this.next(); // 'extension'
    const name = this.expectName("after 'extension'").text;
    this.expectPunct("(", `after extension name '${name}'`);
    const params: string[] = [];
    if (!this.isPunct(")")) {
      params.push(this.expectName("as an extension parameter").text);
      while (this.isPunct(",")) {
        this.next();
        params.push(this.expectName("as an extension parameter").text);
      }
    }
    this.expectPunct(")", "to close the extension parameters");
    this.expectPunct("{", `to open extension '${name}'`);
    const types: DynamicType[] = [];
    while (!this.isPunct("}")) types.push(this.parseDynamicType());
    if (types.length === 0) this.fail(`extension '${name}' needs at least one 'type' block`);
    this.next();
    return { name, visibility: access ?? "public", params, types, loc: this.loc(kw) };
  }

  private parseDynamicType(): DynamicType {
    if (this.isPunct("@")) this.fail("decorators are not allowed inside an extension");
    const access = this.parseAccess();
    const kw = this.expectKeyword("type", "in an extension body");
    const name = this.parseName(true, "after 'type'");
    this.expectPunct("{", "to open the extension type");
    const relations: DynamicRelation[] = [];
    while (!this.isPunct("}")) {
      if (this.peek().kind === "eof") this.fail("expected '}' to close the extension type");
      const allowDuplicates = this.isKeyword("allow_duplicates");
      const start = this.peek();
      if (allowDuplicates) this.next();
      const relAccess = this.parseAccess();
      this.expectKeyword("relation", "in an extension type");
      const relName = this.parseName(true, "after 'relation'");
      this.expectPunct(":", "after the relation name");
      const body = this.parseBody(true);
      relations.push({ name: relName, visibility: relAccess ?? "public", allowDuplicates, body, loc: this.loc(start) });
    }
    this.next();
    return { name, visibility: access ?? "public", relations, loc: this.loc(kw) };
  }
}

/** Outside extensions every name is a literal (templates were rejected while parsing). */
function toStaticBody(body: DynamicBody): RelationBody {
  const literal = (n: DynamicName): string => (n.kind === "literal" ? n.value : "");
  switch (body.kind) {
    case "self":
      return body;
    case "reference":
      return { kind: "reference", relation: literal(body.relation), loc: body.loc };
    case "nested_reference":
      return { kind: "nested_reference", relation: literal(body.relation), subRelation: literal(body.subRelation), loc: body.loc };
    default:
      return { kind: body.kind, left: toStaticBody(body.left), right: toStaticBody(body.right), loc: body.loc };
  }
}
