// The one place where failures become HTTP answers on the HTTP/JSON interface. Domain errors first
// become gRPC statuses (grpc/errors.ts, shared with the gRPC port), then HTTP as inventory-api's
// HTTP server (kratos) answers them: its gRPC-code → HTTP-status table and its error body
// `{code: <http status>, reason, message, metadata}`, where reason is "CODEC" for a body that does
// not decode, "VALIDATOR" for a field rule, "UNAUTHORIZED" for failed authentication, else empty.
import { status } from "@grpc/grpc-js";
import { ProtoJsonError } from "@gatehouse/proto";
import { EngineError } from "../errors.js";
import { toGrpcFailure } from "../grpc/errors.js";
import { MAX_STATUS_MESSAGE } from "../limits.js";

export interface HttpFailure {
  status: number;
  body: { code: number; reason: string; message: string; metadata: Record<string, string> };
  /** The gRPC status the same failure has on the gRPC port (logs, metrics). */
  grpcCode: status;
}

/** gRPC code → HTTP status, as kratos converts them (499 is nginx's "client closed request"). */
const HTTP_STATUS: Readonly<Record<number, number>> = {
  [status.OK]: 200,
  [status.CANCELLED]: 499,
  [status.UNKNOWN]: 500,
  [status.INVALID_ARGUMENT]: 400,
  [status.DEADLINE_EXCEEDED]: 504,
  [status.NOT_FOUND]: 404,
  [status.ALREADY_EXISTS]: 409,
  [status.PERMISSION_DENIED]: 403,
  [status.UNAUTHENTICATED]: 401,
  [status.RESOURCE_EXHAUSTED]: 429,
  [status.FAILED_PRECONDITION]: 400,
  [status.ABORTED]: 409,
  [status.OUT_OF_RANGE]: 400,
  [status.UNIMPLEMENTED]: 501,
  [status.INTERNAL]: 500,
  [status.UNAVAILABLE]: 503,
  [status.DATA_LOSS]: 500,
};

export const httpStatusOf = (code: status): number => HTTP_STATUS[code] ?? 500;

/** A request body the JSON mapping refuses (malformed JSON, wrong types, bad text, too large). */
export class BodyError extends Error {
  override readonly name = "BodyError";
  constructor(
    message: string,
    readonly httpStatus = 400,
  ) {
    super(message);
  }
}

const bounded = (message: string): string => (message.length <= MAX_STATUS_MESSAGE ? message : `${message.slice(0, MAX_STATUS_MESSAGE - 1)}…`);

function failure(httpStatus: number, grpcCode: status, reason: string, message: string): HttpFailure {
  return { status: httpStatus, grpcCode, body: { code: httpStatus, reason, message: bounded(message), metadata: {} } };
}

/** The answer to a failure of the request's body, its authentication (`stage`) or its handling. */
export function toHttpFailure(error: unknown, stage: "body" | "authentication" | "handler"): HttpFailure {
  if (error instanceof BodyError) return failure(error.httpStatus, status.INVALID_ARGUMENT, "CODEC", error.message);
  // The JSON library's messages quote the offending value; the bound above keeps that short.
  if (error instanceof ProtoJsonError) return failure(400, status.INVALID_ARGUMENT, "CODEC", error.message);
  const grpc = toGrpcFailure(error);
  const httpStatus = httpStatusOf(grpc.code);
  if (stage === "authentication" && grpc.code === status.UNAUTHENTICATED) return failure(httpStatus, grpc.code, "UNAUTHORIZED", grpc.message);
  if (error instanceof EngineError && error.violation) return failure(httpStatus, grpc.code, "VALIDATOR", grpc.message);
  return failure(httpStatus, grpc.code, "", grpc.message);
}
