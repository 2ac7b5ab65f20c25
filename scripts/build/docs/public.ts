// What the public docs may show: the contract's decisions only (the tooling part of docs/decisions.md stays in the
// repository), no paths of the repository (readers of the site have none), and in each environment's operations
// that environment's `X-CareAPI-Env` example.

/** The heading that starts the decisions that are not part of the contract. */
export const TOOLING_HEADING = /^## Tooling choices\b.*$/m;

/** docs/decisions.md as published: up to the tooling heading, without the `Where` bullets (repository paths). */
export function publicDecisions(markdown: string): string {
  const cut = TOOLING_HEADING.exec(markdown);
  let text = cut ? markdown.slice(0, cut.index) : markdown;
  text = text.replace(/\n-{3,}\s*$/, '\n');
  // a decision's `Where` names files of the repository; the description marks the same places with x-care-decision
  text = text.replace(/^- \*\*Where:\*\*[\s\S]*?(?=^- \*\*|^#|^\s*$)/gm, '');
  return withoutRepositoryPaths(text).trim();
}

/** Words for the repository paths a public page may mention, by their first segments. */
const PATH_WORDS: [RegExp, (match: string, ...groups: string[]) => string][] = [
  [/`(?:openapi\/)?components\/[A-Za-z]+\/([A-Za-z0-9_.-]+?)(?:\*)?\.yaml`/g, (_m, name) => `\`${name.replace(/\*$/, '')}\``],
  [/`(?:openapi\/)?components\/([A-Za-z]+)\/\*?`/g, (_m, kind) => `the description's ${kind}`],
  [/`docs\/seed\.md`/g, () => 'the specification'],
  [/`docs\/decisions\.md`/g, () => 'the *Decisions* section'],
  [/`docs\/([a-z-]+)\.md`/g, (_m, name) => `the ${name} guide`],
  [/`(?:openapi\/)?(?:paths|webhooks)\/[^`]*`/g, () => 'the description'],
  [/`openapi\/[^`]*`/g, () => 'the description'],
  [/`scripts\/[^`]*`/g, () => 'the build'],
  [/`test\/[^`]*`/g, () => 'a test'],
  [/`(?:src|bench|packages|plugins|generated)\/[^`]*`/g, () => 'the reference implementation'],
];

/** Markdown with relative links unlinked (their targets are files of the repository) and repository paths in words. */
export function withoutRepositoryPaths(markdown: string): string {
  let text = markdown.replace(/\[([^\]]+)\]\((?!https?:|#|mailto:)[^)]+\)/g, '$1');
  for (const [pattern, word] of PATH_WORDS) text = text.replace(pattern, word as any);
  return text;
}

/** A repository path in public text (the hygiene test and the build use the same rule). */
export const REPOSITORY_PATH = /(?<![\w/.:{}-])(?:(?:src|scripts|test|docs|openapi|generated|bench|packages|plugins)\/[\w.*{}-]|(?:components|paths|webhooks)\/[\w.*{}-]+\.ya?ml\b)/;

/** Every description text of `document` (info, tags, operations, schemas) with repository paths in words. */
export function scrubDescriptions(node: any): void {
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries<any>(node)) {
    if ((key === 'description' || key === 'summary') && typeof value === 'string') node[key] = withoutRepositoryPaths(value);
    else scrubDescriptions(value);
  }
}

/**
 * Each environment's operations show that environment's `X-CareAPI-Env`: in the complete description the header's
 * example is Production's; a path item of one environment only (`x-care-environments`) gets that one's value as
 * the header component's enum spells it.
 */
export function environmentHeaderExamples(document: any): void {
  const header = document.components?.headers?.['X-CareAPI-Env'];
  const values: string[] = header?.schema?.enum ?? [];
  const valueOf = (environment: string) => values.find((v) => v.toLowerCase() === environment.toLowerCase());
  for (const item of Object.values<any>(document.paths ?? {})) {
    const environments: string[] | undefined = item?.['x-care-environments'];
    if (!environments || environments.length !== 1 || !valueOf(environments[0])) continue;
    const value = valueOf(environments[0]);
    for (const operation of Object.values<any>(item)) {
      for (const response of Object.values<any>(operation?.responses ?? {})) {
        const resolved = response?.$ref ? resolveLocal(document, response.$ref) : response;
        if (!resolved?.headers?.['X-CareAPI-Env']) continue;
        const copy = structuredClone(resolved);
        copy.headers['X-CareAPI-Env'] = { ...structuredClone(header), example: value, schema: { ...structuredClone(header.schema), example: value } };
        delete copy.headers['X-CareAPI-Env'].examples;
        operation.responses[Object.keys(operation.responses).find((k) => operation.responses[k] === response)!] = copy;
      }
    }
  }
}

function resolveLocal(document: any, ref: string): any {
  return ref.replace(/^#\//, '').split('/').reduce((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
}
