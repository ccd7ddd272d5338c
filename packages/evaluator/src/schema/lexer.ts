// Tokeniser for zed schema text. Type names keep their `/` (`rbac/workspace`), comments are
// `//` to end of line and `/* ... */` (also `/** doc */`).
import { SchemaError } from "../errors.js";

/** "bad": a character no token starts with; the parser reports it when it reaches it (so a construct it refuses by name, like a caveat body, is named first). */
export type TokenKind = "name" | "punct" | "bad" | "eof";

export interface Token {
  kind: TokenKind;
  text: string;
  line: number;
  column: number;
  /** A line ended between the previous token and this one (outside a block comment): a statement may end there. */
  newlineBefore: boolean;
}

const PUNCTUATION = ["->", "{", "}", ":", ";", "|", "#", "*", "(", ")", "+", "&", "-", "=", ",", "."];
const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_/]/;

export function tokenize(text: string, fileName?: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const column = (): number => i - lineStart + 1;
  // As in SpiceDB's lexer, a line end ends a statement; one inside a block comment does not.
  let newlineBefore = false;
  const push = (kind: TokenKind, text: string, tokenLine: number, tokenColumn: number): void => {
    tokens.push({ kind, text, line: tokenLine, column: tokenColumn, newlineBefore });
    newlineBefore = false;
  };

  while (i < text.length) {
    const c = text[i]!;
    if (c === "\n") {
      newlineBefore = true;
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const startLine = line;
      const startColumn = column();
      i += 2;
      while (i < text.length && !(text[i] === "*" && text[i + 1] === "/")) {
        if (text[i] === "\n") {
          line++;
          lineStart = i + 1;
        }
        i++;
      }
      if (i >= text.length) {
        throw new SchemaError("unterminated-comment", "unterminated /* comment", startLine, startColumn, fileName);
      }
      i += 2;
      continue;
    }
    if (NAME_START.test(c)) {
      const start = i;
      const startColumn = column();
      while (i < text.length && NAME_PART.test(text[i]!)) {
        // A `/` inside a name is a namespace separator, never the start of a comment.
        if (text[i] === "/" && (text[i + 1] === "/" || text[i + 1] === "*")) break;
        i++;
      }
      push("name", text.slice(start, i), line, startColumn);
      continue;
    }
    const punct = PUNCTUATION.find((p) => text.startsWith(p, i));
    if (punct) {
      push("punct", punct, line, column());
      i += punct.length;
      continue;
    }
    push("bad", c, line, column());
    i++;
  }
  push("eof", "", line, column());
  return tokens;
}
