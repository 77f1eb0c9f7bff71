/**
 * A local fake of CourtListener's citation-lookup API, speaking its documented contract
 * (https://www.courtlistener.com/help/api/rest/citation-lookup/): POST /api/rest/v4/citation-lookup/ with a form
 * field `text` and `Authorization: Token …`; 200 with one result per citation (status 200 with its clusters, or
 * 404); 401 for a wrong token; 429 with `wait_until` when throttled. The modes make it misbehave the ways a
 * provider does: throttle, hang, answer garbage, fail with 500.
 *
 * TEST FIXTURE: its clusters are built from the citations CourtListener linked in the bundled opinions (volume,
 * reporter, page, the linked opinion id and its URL slug); the case names are the slugs, not CourtListener's data.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bundledAnswerKeys } from './courtlistener-html.ts';

export type FakeMode = 'ok' | 'throttle' | 'hang' | 'garbage' | 'error';

export interface FakeCourtListener {
  url: string;
  token: string;
  mode: FakeMode;
  /** Requests received, and the last one's Authorization header and text. */
  requests: number;
  lastAuthorization: string | undefined;
  lastText: string | undefined;
  /** Citations (`volume reporter page`) the fake can resolve. */
  known: ReadonlyMap<string, { id: number; slug: string }>;
  close(): Promise<void>;
}

function knownCitations(): Map<string, { id: number; slug: string }> {
  const known = new Map<string, { id: number; slug: string }>();
  for (const key of bundledAnswerKeys()) {
    for (const c of key.citations)
      if (c.opinionId) known.set(`${c.volume} ${c.reporter} ${c.page}`, { id: c.opinionId, slug: `opinion-${c.opinionId}` });
  }
  return known;
}

export async function startFakeCourtListener(token = 'fake-token'): Promise<FakeCourtListener> {
  const known = knownCitations();
  const pending = new Set<() => void>();
  const fake: FakeCourtListener = {
    url: '',
    token,
    mode: 'ok',
    requests: 0,
    lastAuthorization: undefined,
    lastText: undefined,
    known,
    close: async () => {
      for (const release of pending) release();
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url !== '/api/rest/v4/citation-lookup/') return send(404, { detail: 'Not found.' });
      fake.requests++;
      fake.lastAuthorization = req.headers.authorization;
      if (req.headers.authorization !== `Token ${token}`) return send(401, { detail: 'Invalid token.' });
      const text = new URLSearchParams(raw).get('text') ?? '';
      fake.lastText = text;
      switch (fake.mode) {
        case 'throttle':
          return send(429, { wait_until: new Date(Date.now() + 60_000).toISOString() });
        case 'hang':
          return void pending.add(() => res.destroy());
        case 'garbage':
          return send(200, '<html>Service temporarily unavailable</html>', { 'content-type': 'text/html' });
        case 'error':
          return send(500, { detail: 'Server error.' });
      }
      let at = 0;
      const results = text.split(';').map((part) => {
        const citation = part.trim().replace(/\s+/g, ' ');
        const start = text.indexOf(citation, at);
        at = start + citation.length;
        const hit = known.get(citation);
        return {
          citation,
          normalized_citations: [citation],
          start_index: start,
          end_index: start + citation.length,
          status: hit ? 200 : 404,
          error_message: hit ? '' : `Citation not found: '${citation}'`,
          clusters: hit
            ? [
                {
                  id: hit.id,
                  absolute_url: `/opinion/${hit.id}/${hit.slug}/`,
                  case_name: hit.slug,
                  case_name_full: '',
                  case_name_short: '',
                  date_filed: '1982-03-24',
                  docket_id: null,
                  precedential_status: 'Published',
                  citation_count: 1,
                  citations: [
                    {
                      volume: Number(citation.split(' ')[0]),
                      reporter: citation.split(' ').slice(1, -1).join(' '),
                      page: citation.split(' ').at(-1),
                      type: 1,
                    },
                  ],
                },
              ]
            : [],
        };
      });
      send(200, results);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
