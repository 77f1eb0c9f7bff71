import type { Route, RouteContext, RouteResult } from '../route.ts';

export const API_VERSION = '1.0.0';
const cache = new Map<string, string>();

/** Serves the OpenAPI document generated from `routes` (built on first request, then cached). */
export async function handleOpenApi(format: 'yaml' | 'json', routes: readonly Route[], { services }: RouteContext): Promise<RouteResult> {
  const cacheKey = `${format}|${services.site.baseUrl}`;
  let text = cache.get(cacheKey);
  if (!text) {
    const { buildOpenApi, openApiYaml } = await import('../openapi.ts');
    const doc = buildOpenApi(routes, { serverUrl: services.site.baseUrl, version: API_VERSION });
    text = format === 'yaml' ? openApiYaml(doc) : JSON.stringify(doc, null, 2);
    cache.set(cacheKey, text);
  }
  return {
    body: text,
    contentType: format === 'yaml' ? 'application/yaml; charset=utf-8' : 'application/json; charset=utf-8',
    headers: { 'cache-control': 'public, max-age=300' },
  };
}
