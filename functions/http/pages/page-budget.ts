import { EdgeLimiter, SITE_READS_PER_MINUTE } from '#accounts/edge-limit.ts';
import { htmlPage } from './html.ts';
import type { PageRequest } from './page.ts';

/**
 * One per-address budget for every page that reads a store per request (the section pages, their comparisons, the
 * search page): SITE_READS_PER_MINUTE a minute from one address, all of them together, not a count per page. Pages
 * that read nothing per request (the front page, whose coverage is cached, the citation box, the docs) are not
 * counted. The count is in process: the local server's pages share it; in AWS each function instance counts its own
 * and the site's web ACL (lib/edge-firewall.ts) counts the same paths per address in front of them all.
 */
const shared = new EdgeLimiter(SITE_READS_PER_MINUTE, 50_000);

/** Seconds until the current UTC minute, the limiter's window, ends: when the address may read again. */
const secondsLeftInMinute = (now: Date) => 60 - Math.floor((now.getTime() % 60_000) / 1000);

/**
 * Counts one read of the law by the request's address; past the budget, the answer instead of the page: a `429` page
 * with `Retry-After` and the pages' headers. A request whose address is unknown is not counted (the local server and
 * API Gateway always give one). `nav` is the page's own navigation, so that the refusal still leads somewhere.
 */
export function overSiteBudget({ client, services }: Pick<PageRequest, 'client' | 'services'>, nav: string) {
  const limiter = services.siteReads === undefined ? shared : services.siteReads;
  if (!client || !limiter) return null;
  const now = services.now();
  if (limiter.hit(client, now).allowed) return null;
  const retryAfter = secondsLeftInMinute(now);
  const page = htmlPage(
    429,
    'Too many requests',
    `<h1>Too many requests</h1><p class="notice" role="alert">At most ${limiter.limit} pages of the law a minute from one address ` +
      `(sections, comparisons and searches together): try again in ${retryAfter === 1 ? 'a second' : `${retryAfter} seconds`}. ` +
      'The API reads more under a key.</p>',
    { nav },
  );
  return { ...page, headers: { ...page.headers, 'retry-after': String(retryAfter) } };
}
