import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ROUTES } from '#http/routes.ts';
import { RESPONSE_SCHEMAS } from '#http/schemas-responses.ts';

describe('the response schemas a route names', () => {
  it('are keyed by their OpenAPI component id', () => {
    const ids = Object.entries(RESPONSE_SCHEMAS).map(([key, schema]) => [key, z.globalRegistry.get(schema)?.id]);

    expect(ids).toEqual(Object.keys(RESPONSE_SCHEMAS).map((key) => [key, key]));
  });

  it('are exactly the ones the route table names: every documented route answers with one, none is left unused', () => {
    const named = new Set(ROUTES.flatMap((r) => Object.values(r.responses).map((res) => res.schema)));
    const undocumented = ROUTES.filter((r) => !r.hidden && Object.keys(r.responses).length === 0).map((r) => r.id);

    expect([...named].sort()).toEqual(Object.keys(RESPONSE_SCHEMAS).sort());
    expect(undocumented).toEqual([]);
  });
});
