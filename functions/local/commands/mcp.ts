/**
 * `asof mcp`: the tools for LLM agents (Model Context Protocol) on stdin/stdout, for an agent host. The MCP server's
 * code (mcp-stdio.ts and the SDK) is imported only when the command runs.
 */
import { FALLBACK_ENV, fallbackSettings } from '#app/fallback.ts';
import { sharedTokenFallback } from '#stores/courtlistener/citation-provider.ts';
import { type Command, UsageError } from './command.ts';
import { DATA_DIR, dataDirOf, portOf } from './flags.ts';

const OPTIONS = {
  key: { type: 'string' },
  'base-url': { type: 'string' },
  port: { type: 'string' },
  ...DATA_DIR,
} as const;

export const mcpCommand: Command<typeof OPTIONS> = {
  name: 'mcp',
  options: OPTIONS,
  usage: () => `  mcp [--key KEY] [--base-url URL] [--port N]
                             the tools for LLM agents (Model Context Protocol) on stdin/stdout, for an agent host:
                             against --base-url (a remote asof, with /v1), else the server running on the data dir,
                             else the data dir served by this process (on --port, default a free one); the key
                             (env ASOF_API_KEY) is every tool call's bearer, billed as the REST routes`,
  async run(_args, flags, io, { cwd }) {
    const dataDir = dataDirOf(flags, cwd);
    const port = portOf(flags.port, 0);
    const baseUrl = flags['base-url'];
    if (baseUrl !== undefined && !/^https?:\/\/[^/]/.test(baseUrl))
      throw new UsageError(`--base-url must be an http(s) address (got '${baseUrl}')`);
    const key = flags.key ?? process.env.ASOF_API_KEY?.trim();
    const fallback = sharedTokenFallback(fallbackSettings(process.env), process.env[FALLBACK_ENV.token]?.trim() || null);
    const { serveMcpStdio } = await import('../mcp-stdio.ts');
    return serveMcpStdio({ dataDir, ...(baseUrl && { baseUrl }), ...(key && { key }), port, fallback, err: io.err });
  },
};
