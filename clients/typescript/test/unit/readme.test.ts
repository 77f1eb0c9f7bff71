import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';

it('the README shows examples/quick-start.ts as it stands (the http tests run that file)', async () => {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const example = await readFile(new URL('../../examples/quick-start.ts', import.meta.url), 'utf8');
  expect(readme).toContain(`\`\`\`ts\n${example}\`\`\`\n`);
});
