import xrayPostgres from 'aws-xray-sdk-postgres';
import pg from 'pg';
import { tracer } from '../powertools.ts';

// The package's types name a `capturePostgres` export; at run time the module itself is that function.
const capturePostgres = xrayPostgres as unknown as (module: typeof pg) => typeof pg;

/**
 * pg whose every query is a subsegment (`<database>@<host>`, with its SQL) of the request's trace, when the function
 * traces: X-Ray's own capture, which patches pg's Client once for the whole process.
 */
export const tracedPg: typeof pg = tracer.isTracingEnabled() ? capturePostgres(pg) : pg;
