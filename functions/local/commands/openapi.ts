/** `asof openapi [--write]`: the OpenAPI document of the route table, printed or written to openapi/ (YAML and JSON). */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from './command.ts';
import { DEFAULT_PORT } from './flags.ts';

const OPTIONS = { write: { type: 'boolean' } } as const;

export const openapiCommand: Command<typeof OPTIONS> = {
  name: 'openapi',
  options: OPTIONS,
  usage: () => '  openapi [--write]          print (or write to openapi/) the OpenAPI document',
  async run(_args, flags, io, { cwd }) {
    // The HTTP layer is loaded for this command only.
    const [{ API_VERSION }, { buildOpenApi, openApiYaml }, { ROUTES }] = await Promise.all([
      import('#http/handlers/spec.ts'),
      import('#http/openapi.ts'),
      import('#http/routes.ts'),
    ]);
    const doc = buildOpenApi(ROUTES, { serverUrl: `http://127.0.0.1:${DEFAULT_PORT}/v1`, version: API_VERSION });
    if (!flags.write) {
      io.out(openApiYaml(doc));
      return 0;
    }
    const dir = join(cwd, 'openapi');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'openapi.yaml'), openApiYaml(doc));
    await writeFile(join(dir, 'openapi.json'), `${JSON.stringify(doc, null, 2)}\n`);
    io.out(`wrote ${join(dir, 'openapi.yaml')} and openapi.json`);
    return 0;
  },
};
