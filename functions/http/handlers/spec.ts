import type { RouteContext, RouteResult } from '../route.ts';

export const API_VERSION = '1.0.0';
const cache = new Map<string, string>();

/** Serves the OpenAPI document generated from the route table (built on first request, then cached). */
export async function handleOpenApi(format: 'yaml' | 'json', { services }: RouteContext): Promise<RouteResult> {
  const cacheKey = `${format}|${services.site.baseUrl}`;
  let text = cache.get(cacheKey);
  if (!text) {
    const [{ buildOpenApi, openApiYaml }, { ROUTES }] = await Promise.all([import('../openapi.ts'), import('../routes.ts')]);
    const doc = buildOpenApi(ROUTES, { serverUrl: services.site.baseUrl, version: API_VERSION });
    text = format === 'yaml' ? openApiYaml(doc) : JSON.stringify(doc, null, 2);
    cache.set(cacheKey, text);
  }
  return {
    body: text,
    contentType: format === 'yaml' ? 'application/yaml; charset=utf-8' : 'application/json; charset=utf-8',
    headers: { 'cache-control': 'public, max-age=300' },
  };
}
