// KSL lexer: turns source text into tokens with 1-based positions. Lexical errors are reported and
// the offending character skipped, so the parser still sees the rest of the file.
import type { DiagnosticSink } from "./diagnostics.js";

export const KEYWORDS = new Set([
  "version",
  "namespace",
  "import",
  "type",
  "relation",
  "extension",
  "public",
  "internal",
  "private",
  "AtMostOne",
  "ExactlyOne",
  "AtLeastOne",
  "Any",
  "as",
  "and",
  "or",
  "unless",
  "allow_duplicates",
]);

export type TokenKind =
  | "name" // identifier (text without a leading '#')
  | "keyword"
  | "version-number"
  | "punct"
  | "eof";

export interface Token {
  kind: TokenKind;
  /** Identifier/keyword text, number text, or the punctuation character. */
  text: string;
  /** True for `#name` identifiers (keywords usable as names). */
  escaped: boolean;
  line: number;
  column: number;
}

const PUNCTUATION = new Set([":", "{", "}", "@", "(", ")", "[", "]", "$", "`", "'", ",", ";", "."]);
const isIdentStart = (c: string): boolean => /[A-Za-z_]/.test(c);
const isIdentPart = (c: string): boolean => /[A-Za-z_0-9]/.test(c);
const isDigit = (c: string): boolean => c >= "0" && c <= "9";

export function tokenize(text: string, file: string, sink: DiagnosticSink): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let column = 1;

  const advance = (n = 1): void => {
    for (let k = 0; k < n; k++) {
      if (text[i] === "\n") {
        line++;
        column = 1;
      } else {
        column++;
      }
      i++;
    }
  };
  const push = (kind: TokenKind, tokenText: string, l: number, c: number, escaped = false): void => {
    tokens.push({ kind, text: tokenText, escaped, line: l, column: c });
  };

  while (i < text.length) {
    const c = text[i]!;
    const l = line;
    const col = column;
    if (c === " " || c === "\t" || c === "\r" || c === "\n") {
      advance();
      continue;
    }
    if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") advance();
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      sink.report("block-comment", { file, line: l, column: col }, "block comments '/* */' are not supported; use '//'");
      const end = text.indexOf("*/", i + 2);
      advance(end === -1 ? text.length - i : end + 2 - i);
      continue;
    }
    if (isIdentStart(c) || (c === "#" && isIdentStart(text[i + 1] ?? ""))) {
      const escaped = c === "#";
      const start = escaped ? i + 1 : i;
      let end = start;
      while (end < text.length && isIdentPart(text[end]!)) end++;
      const word = text.slice(start, end);
      advance(end - i);
      push(!escaped && KEYWORDS.has(word) ? "keyword" : "name", word, l, col, escaped);
      continue;
    }
    if (isDigit(c)) {
      // Only version numbers exist: one digit, a dot, then digits.
      let end = i + 1;
      if (text[end] === "." && isDigit(text[end + 1] ?? "")) {
        end += 1;
        while (end < text.length && isDigit(text[end]!)) end++;
        push("version-number", text.slice(i, end), l, col);
      } else {
        while (end < text.length && isIdentPart(text[end]!)) end++;
        sink.report("invalid-number", { file, line: l, column: col }, `'${text.slice(i, end)}' is not a version number (expected a form like 0.1) and names cannot start with a digit`);
      }
      advance(end - i);
      continue;
    }
    if (PUNCTUATION.has(c)) {
      push("punct", c, l, col);
      advance();
      continue;
    }
    const hint = c === '"' ? " (decorator argument values use single quotes)" : "";
    sink.report("unexpected-character", { file, line: l, column: col }, `unexpected character '${c}'${hint}`);
    advance();
  }
  push("eof", "", line, column);
  return tokens;
}
