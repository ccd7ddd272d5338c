import { z } from "zod";

/** One environment variable: how to parse it (a zod schema over the raw string) and how to document it. */
export interface Setting<T> {
  readonly schema: z.ZodType<T, string | undefined>;
  readonly doc: SettingDoc;
}

export interface SettingDoc {
  description: string;
  /** The default as a person would write it in the environment; undefined: unset means "off"/absent. */
  default: string | undefined;
  /** What unset means when there is no default (e.g. "embedded PGlite"). */
  unset?: string;
  /** Never printed with a value (.env.example leaves it empty). */
  secret?: boolean;
}

/** A configuration error naming every offending variable. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly app: string,
    readonly problems: readonly { variable: string; message: string }[],
  ) {
    super(`Invalid ${app} configuration: ${problems.map((p) => `${p.variable}: ${p.message}`).join("; ")}`);
  }
}

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);
/** Unset and empty (or blank) mean the same: the default. */
const present = (raw: string | undefined): string | undefined => (raw === undefined || raw.trim() === "" ? undefined : raw.trim());
const MAX_SHOWN = 64;
const shown = (raw: string) => `'${raw.length > MAX_SHOWN ? `${raw.slice(0, MAX_SHOWN)}…` : raw}'`;

/** A setting whose present value goes through `parse` (throwing a message on a bad value). */
function custom<T>(doc: SettingDoc, fallback: T, parse: (value: string) => T): Setting<T> {
  const schema = z
    .string()
    .optional()
    .transform((raw, ctx): T => {
      const value = present(raw);
      if (value === undefined) return fallback;
      try {
        return parse(value);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: `${error instanceof Error ? error.message : String(error)}, got ${shown(value)}` });
        return z.NEVER;
      }
    });
  return { schema, doc };
}

function integer(value: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(value)) throw new Error("must be an integer");
  const n = Number(value);
  if (n < min || n > max) throw new Error(max === Number.MAX_SAFE_INTEGER ? `must be an integer ≥ ${min}` : `must be an integer from ${min} to ${max}`);
  return n;
}

interface Options<D> {
  default?: D;
  unset?: string;
  secret?: boolean;
}

/** Builders for the kinds of variables the apps read; each applies the same rules everywhere. */
export const setting = {
  /** Free text. */
  string<D extends string | undefined = undefined>(description: string, options: Options<D> = {}): Setting<D extends string ? string : string | undefined> {
    return custom<string | undefined>({ description, default: options.default, unset: options.unset, secret: options.secret }, options.default, (v) => v) as Setting<
      D extends string ? string : string | undefined
    >;
  },
  /** A URL with one of `protocols` (default any). */
  url(description: string, options: { protocols?: readonly string[]; unset?: string; secret?: boolean } = {}): Setting<string | undefined> {
    return custom({ description, default: undefined, unset: options.unset, secret: options.secret }, undefined as string | undefined, (v) => {
      let url: URL;
      try {
        url = new URL(v);
      } catch {
        throw new Error("must be a URL");
      }
      if (options.protocols && !options.protocols.includes(url.protocol.replace(/:$/, ""))) throw new Error(`must be a ${options.protocols.join(" or ")} URL`);
      return v;
    });
  },
  /** true/false; also 1/0, yes/no, on/off, any case. */
  bool(description: string, fallback: boolean): Setting<boolean> {
    return custom({ description, default: String(fallback) }, fallback, (v) => {
      const lower = v.toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      throw new Error("must be true or false");
    });
  },
  /** An integer within [min, max]. */
  int<D extends number | undefined = undefined>(description: string, options: Options<D> & { min?: number; max?: number } = {}): Setting<D extends number ? number : number | undefined> {
    const min = options.min ?? 0;
    const max = options.max ?? Number.MAX_SAFE_INTEGER;
    return custom<number | undefined>({ description, default: options.default === undefined ? undefined : String(options.default), unset: options.unset }, options.default, (v) =>
      integer(v, min, max),
    ) as Setting<D extends number ? number : number | undefined>;
  },
  /** A TCP port, 0 (any free port) to 65535. */
  port(description: string, fallback: number): Setting<number> {
    return custom({ description, default: String(fallback) }, fallback, (v) => integer(v, 0, 65_535));
  },
  /** One of a fixed set of words. */
  oneOf<const V extends string>(description: string, values: readonly V[], fallback: V): Setting<V> {
    return custom({ description: `${description} (${values.join(" | ")})`, default: fallback }, fallback, (v) => {
      if (!(values as readonly string[]).includes(v)) throw new Error(`must be one of ${values.join(", ")}`);
      return v as V;
    });
  },
  /** Anything else: `parse` turns the text into a value or throws a message. */
  custom<T>(description: string, fallback: T, defaultText: string | undefined, parse: (value: string) => T): Setting<T> {
    return custom({ description, default: defaultText }, fallback, parse);
  },
};

type Values<S extends Record<string, Setting<unknown>>> = { [K in keyof S]: S[K] extends Setting<infer T> ? T : never };

export interface AppConfig<S extends Record<string, Setting<unknown>>> {
  readonly app: string;
  readonly settings: S;
  /** Parses the variables of this app from `env`; throws a ConfigError naming each bad variable. */
  parse(env?: Record<string, string | undefined>): Values<S>;
}

/** One app's configuration schema: a name per variable, in the order they are documented. */
export function defineConfig<S extends Record<string, Setting<unknown>>>(app: string, settings: S): AppConfig<S> {
  const shape = Object.fromEntries(Object.entries(settings).map(([name, s]) => [name, s.schema]));
  const schema = z.object(shape);
  return {
    app,
    settings,
    parse(env = process.env) {
      const input = Object.fromEntries(Object.keys(settings).map((name) => [name, env[name]]));
      const result = schema.safeParse(input);
      if (result.success) return result.data as Values<S>;
      const problems = result.error.issues.map((issue) => ({ variable: String(issue.path[0] ?? "?"), message: issue.message }));
      throw new ConfigError(app, problems);
    },
  };
}
