/** The Council's repository, and what `--repo` takes for a URL (kept apart from the git reader: the CLI loads it at start). */
export const DC_COUNCIL_REMOTE = 'https://github.com/DCCouncil/law-xml-codified';

export const isGitUrl = (repo: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(repo);
