import { citePage } from './cite.ts';
import { docsPage } from './docs.ts';
import { docsAssetPage } from './docs-asset.ts';
import { faviconPage } from './favicon.ts';
import { homePage } from './home.ts';
import type { Page } from './page.ts';
import { permalinkPage } from './permalink.ts';
import { searchPage } from './search.ts';

/** Every page of the public site: the local server mounts them, and the site's API in AWS gives each a function. */
export const PAGES: readonly Page[] = [homePage, citePage, searchPage, docsPage, docsAssetPage, permalinkPage, faviconPage];
