import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { activeTraceFields } from "./tracing.js";

export type { Logger };

export interface LoggerConfig {
  /** Component name, added to every line as `name`. */
  name: string;
  /** pino level; defaults to LOG_LEVEL or "info" ("silent" in tests unless LOG_LEVEL is set). */
  level?: string;
  /** Where lines go; stdout by default. */
  destination?: DestinationStream;
}

/** Structured JSON logs on stdout (one line per event), as the platform's log shippers expect. */
export function createLogger(config: LoggerConfig): Logger {
  const level = config.level ?? process.env["LOG_LEVEL"] ?? (process.env["VITEST"] ? "silent" : "info");
  const options: LoggerOptions = {
    name: config.name,
    level,
    base: { service: config.name },
    timestamp: pino.stdTimeFunctions.isoTime,
    // trace_id/span_id of the active span (tracing on), so logs and traces join up.
    mixin: activeTraceFields,
    redact: { paths: ["req.headers.authorization", "req.headers['x-rh-identity']", "*.password", "*.clientSecret"], remove: true },
  };
  return config.destination ? pino(options, config.destination) : pino(options);
}

/** A logger that drops everything: the default wherever logging is optional. */
export function createSilentLogger(): Logger {
  return pino({ level: "silent" });
}
