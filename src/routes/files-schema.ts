import type { FastifySchema } from 'fastify';

/** The Files API routes are documented by http/openapi-files.ts (raw byte bodies); the handlers check their own input. */
const hidden: FastifySchema = { hide: true };

export const FILES_ROUTE_SCHEMAS: Record<'GET' | 'HEAD' | 'PUT' | 'DELETE', FastifySchema> = {
  GET: hidden,
  HEAD: hidden,
  PUT: hidden,
  DELETE: hidden,
};
