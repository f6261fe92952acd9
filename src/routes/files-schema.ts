import type { FastifySchema } from 'fastify';
import { SECURED } from './tools.js';

/** The Files API routes' OpenAPI descriptions (the handlers check their own input). */
export const FILES_ROUTE_SCHEMAS: Record<'GET' | 'HEAD' | 'PUT' | 'DELETE', FastifySchema> = {
  GET: {
    summary: 'Download a file, or list a folder',
    operationId: 'filesGet',
    tags: ['files'],
    security: SECURED,
  },
  HEAD: {
    summary: 'Whether a file or folder exists, with its headers',
    operationId: 'filesHead',
    tags: ['files'],
    security: SECURED,
  },
  PUT: {
    summary: 'Upload a file (atomic, durable)',
    operationId: 'filesPut',
    tags: ['files'],
    security: SECURED,
  },
  DELETE: {
    summary: 'Remove a file or folder',
    operationId: 'filesDelete',
    tags: ['files'],
    security: SECURED,
  },
};
