import type { NextFunction, Request, RequestHandler, Response } from "express";

/** Response header carrying the consistency token of a write's revision. */
export const CONSISTENCY_TOKEN_HEADER = "x-gatehouse-consistency-token";

/** Express 5 forwards rejected promises, but typing the handler here keeps routes uniform. */
export function route(fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    fn(req, res).catch(next);
  };
}

export function sendJson(res: Response, status: number, body: unknown, token?: string | null): void {
  if (token) res.setHeader(CONSISTENCY_TOKEN_HEADER, token);
  if (status === 204) {
    res.status(204).end();
    return;
  }
  res.status(status).json(body);
}
