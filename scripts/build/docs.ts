// Step: the docs site generated/docs/: one page that renders the complete description with Redoc's standalone
// bundle shipped beside it and the description embedded in the page, so it works offline and from file://.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type { BuildStep } from './context.ts';
import { specFromDocument, type CareSpec } from '../../src/spec/index.ts';
import { addCodeSamples } from './docs/code-samples.ts';
import { CONSOLE_LINK_TEXT, consoleLink, consolePage, swaggerFile, SWAGGER_FILES } from './docs/console.ts';
import { FILTERING_TAG, splitGuide } from './docs/filtering-guide.ts';
import { fieldFilterSchemaName, listOperatorsMarkdown, operatorText } from './docs/operators.ts';
import { environmentHeaderExamples, publicDecisions, scrubDescriptions } from './docs/public.ts';
import { describeLinks } from './docs/links.ts';
import { LIMITS_TAG, limitsMarkdown } from './docs/limits.ts';

const require = createRequire(import.meta.url);
const redocDir = dirname(require.resolve('redoc/package.json'));
const REDOC_VERSION: string = require('redoc/package.json').version;

export const DOCS_DIR = 'docs';
export const DECISIONS_FILE = 'docs/decisions.md';
export const DECISIONS_TAG = 'Decisions';
export const CHANGELOG_FILE = 'CHANGELOG.md';
export const CHANGELOG_TAG = 'Changelog';
/** The *Getting started* guide: the page is this file's text (its steps are run as written by a test). */
export const GETTING_STARTED_FILE = 'docs/getting-started.md';
export const GETTING_STARTED_TAG = 'Getting started';

/**
 * Redoc's footer shows the Redocly logo from `https://cdn.redoc.ly/redoc/logo-mini.svg`: a request to the
 * internet and, offline, a console error. The copied bundle points it at an inline SVG instead (no request).
 * The build fails if the URL is not found exactly once, so a Redoc upgrade cannot bring the request back.
 */
const REDOC_LOGO_URL = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const INLINE_LOGO =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Ccircle cx='8' cy='8' r='6' fill='%23888'/%3E%3C/svg%3E";

/** Redoc options: vendor extensions shown (x-care-decision marks assumptions), webhooks with their verb. */
const REDOC_OPTIONS = {
  showExtensions: true,
  showWebhookVerb: true,
  requiredPropsFirst: true,
  expandResponses: '200,201,202',
  jsonSampleExpandLevel: 3,
};

export function offlineRedocBundle(): string {
  const source = readFileSync(resolve(redocDir, 'bundles/redoc.standalone.js'), 'utf8');
  const occurrences = source.split(REDOC_LOGO_URL).length - 1;
  if (occurrences !== 1) throw new Error(`expected ${REDOC_LOGO_URL} once in redoc ${REDOC_VERSION}'s standalone bundle, found ${occurrences}`);
  const note = `/* redoc ${REDOC_VERSION} bundles/redoc.standalone.js, copied by scripts/build/docs.ts with the footer logo URL (${REDOC_LOGO_URL}) replaced by an inline SVG so that the page makes no network request. */\n`;
  return note + source.replace(REDOC_LOGO_URL, INLINE_LOGO);
}

/**
 * The complete description as the docs show it: the *Filtering* guide (the list rules and coercion table moved
 * there from the introduction), every list's operators explained on its `filter` parameter and on each operator of
 * the *FieldFilter schemas, code samples and a console link on every operation, each environment's `X-CareAPI-Env`,
 * the contract's decisions and the changelog as docs-only sections, no repository paths, and deepObject examples
 * flattened for Redoc (see flattenDeepObjectExamples).
 */
export function docsDocument(complete: any, decisionsMarkdown: string | null, changelogMarkdown: string | null = null, gettingStartedMarkdown: string | null = null): any {
  const spec = specFromDocument(complete);
  const document = structuredClone(complete);
  const { info, guide } = splitGuide(spec, String(document.info?.description ?? ''));
  document.info.description = info;
  explainOperators(spec, document);
  addCodeSamples(spec, document);
  environmentHeaderExamples(document);
  // The section has its own heading: the file's leading `# Decisions` would repeat it.
  const body = decisionsMarkdown ? publicDecisions(decisionsMarkdown.replace(/^\s*# [^\n]*\n/, '')) : '';
  const description = body || 'The decisions are not written yet. Each assumption of the description is marked with its decision id (`x-care-decision`).';
  document.tags = [...(document.tags ?? []), { name: FILTERING_TAG, 'x-traitTag': true, description: guide }, { name: DECISIONS_TAG, 'x-traitTag': true, description }];
  // The Changelog page (CHANGELOG.md, written by `npm run release`), after the decisions.
  // Redoc renders a heading with parentheses twice (as its section and in the text): `## 0.1.0, 2026-11-23`
  const changelog = changelogMarkdown?.replace(/^\s*# [^\n]*\n/, '').replace(/^(#{2,} .*?) \(([^)]*)\)\s*$/gm, '$1, $2').trim();
  const aboutTags = [DECISIONS_TAG];
  if (changelog) {
    document.tags.push({ name: CHANGELOG_TAG, 'x-traitTag': true, description: `Description version ${String(complete.info?.version)}.\n\n${changelog}` });
    aboutTags.push(CHANGELOG_TAG);
  }
  document.tags.push({ name: LIMITS_TAG, 'x-traitTag': true, description: limitsMarkdown(spec) });
  const guides = [FILTERING_TAG, LIMITS_TAG];
  // The file's `# Getting started` is the section's own heading, as for the decisions.
  const gettingStarted = gettingStartedMarkdown?.replace(/^\s*# [^\n]*\n/, '').trim();
  if (gettingStarted) {
    document.tags.unshift({ name: GETTING_STARTED_TAG, 'x-traitTag': true, description: gettingStarted });
    guides.unshift(GETTING_STARTED_TAG);
  }
  if (Array.isArray(document['x-tagGroups'])) {
    document['x-tagGroups'] = [{ name: 'Guides', tags: guides }, ...document['x-tagGroups'], { name: 'About this description', tags: aboutTags }];
  }
  scrubDescriptions(document);
  addConsoleLinks(document); // after the scrub, which unlinks relative links (the repository's files)
  describeLinks(document); // after the scrub too: Redoc shows no OpenAPI `links`, so each response lists its own
  flattenDeepObjectExamples(document);
  return document;
}

/** Each list's filter parameter lists its operators; each operator of a *FieldFilter schema says what it does. */
function explainOperators(spec: CareSpec, document: any): void {
  for (const op of spec.operations) {
    if (!op.list) continue;
    const item = Object.values<any>(document.paths).find((i) => i?.[op.method]?.operationId === op.operationId);
    const parameters: any[] = item[op.method].parameters ?? [];
    const index = parameters.findIndex((p) => (p.$ref ? spec.resolve(p.$ref) : p)?.name === 'filter');
    if (index < 0) continue;
    // a copy per operation: the component may be shared, the text names this list's fields
    const parameter = structuredClone(parameters[index].$ref ? spec.resolve(parameters[index].$ref) : parameters[index]);
    parameter.description = `${String(parameter.description ?? '').trim()}\n\n${listOperatorsMarkdown(spec, op.list)}`;
    parameters[index] = parameter;
  }
  for (const type of ['string', 'integer', 'datetime', 'boolean', 'stringArray'] as const) {
    const name = fieldFilterSchemaName(spec, type);
    const schema = name ? document.components.schemas[name] : undefined;
    if (!schema?.properties) continue;
    for (const [operator, property] of Object.entries<any>(schema.properties)) {
      if (!spec.operators[operator]) continue;
      const resolved = structuredClone(property.$ref ? spec.resolve(property.$ref) : property);
      schema.properties[operator] = { ...resolved, description: operatorText(spec, operator, type) };
    }
  }
}

/** Every operation's description ends with a link to it in the API console. */
function addConsoleLinks(document: any): void {
  for (const item of Object.values<any>(document.paths ?? {})) {
    for (const operation of Object.values<any>(item ?? {})) {
      if (!operation?.operationId || !operation.tags?.[0]) continue;
      operation.description = `${String(operation.description ?? '').trim()}\n\n[${CONSOLE_LINK_TEXT}](${consoleLink(operation.tags[0], operation.operationId)}) (works when the local sandbox serves these docs).`;
    }
  }
}

/**
 * Redoc serialises a deepObject example one level deep, so `{ status: { eq: '10' } }` would read
 * `filter[status]=[object Object]`. In the docs copy, nested members are joined into one key
 * (`{ 'status][eq': '10' }`), which Redoc prints as `filter[status][eq]=10`, the query the service expects.
 */
function flattenDeepObjectExamples(document: any): void {
  const flatten = (value: unknown, prefix = ''): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      const name = prefix ? `${prefix}][${key}` : key;
      if (inner && typeof inner === 'object' && !Array.isArray(inner)) Object.assign(out, flatten(inner, name));
      else out[name] = inner;
    }
    return out;
  };
  const isNested = (value: unknown) =>
    !!value && typeof value === 'object' && Object.values(value).some((inner) => inner && typeof inner === 'object' && !Array.isArray(inner));
  const visit = (node: any) => {
    if (!node || typeof node !== 'object') return;
    if (node.style === 'deepObject' && node.in === 'query') {
      if (isNested(node.example)) node.example = flatten(node.example);
      for (const example of Object.values<any>(node.examples ?? {})) {
        if (example && isNested(example.value)) example.value = flatten(example.value);
      }
    }
    for (const inner of Object.values(node)) visit(inner);
  };
  visit(document.paths);
  visit(document.webhooks);
  visit(document.components?.parameters);
}

/** JSON that is safe inside a <script> element: no `</script>`, no `<!--`, no line separators JS rejects. */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The docs copy of the description as a script both pages load (a script works from file://, a fetch would not). */
export function descriptionScript(document: any): string {
  return `/* Generated by the build's docs step from the description: run \`npm run build\`. */\nwindow.careApiDescription = ${scriptSafeJson(document)};\n`;
}

export function docsPage(document: any): string {
  const title = escapeHtml(`${document.info?.title ?? 'API'} ${document.info?.version ?? ''}`.trim());
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<!-- Generated by the build's docs step from the description, the decisions and the changelog: run \`npm run build\`. -->
<!-- Everything the page needs is beside it: no CDN, no web font, no tracker. -->
<link rel="icon" href="data:,">
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<p id="care-try-it" style="margin: 0; padding: 8px 20px; background: #f4f6f8; font: 14px sans-serif;">Try any request in the <a href="console.html">API console</a> (it sends them when the local sandbox serves these docs: <code>npm start</code>, then <code>http://localhost:4020/docs/</code>).</p>
<div id="redoc"></div>
<noscript>This page renders the Care API description with JavaScript. The description itself is care-api.yaml.</noscript>
<script src="redoc.standalone.js"></script>
<script src="description.js"></script>
<script>
  Redoc.init(window.careApiDescription, ${JSON.stringify(REDOC_OPTIONS)}, document.getElementById('redoc'), function () {
    document.body.setAttribute('data-docs', 'ready');
  });
</script>
</body>
</html>
`;
}

export const docsStep: BuildStep = {
  name: `docs ${DOCS_DIR}/index.html`,
  run(context) {
    const complete = context.documents.complete;
    if (!complete) throw new Error('the complete bundle must be built first');
    const decisionsPath = resolve(context.root, DECISIONS_FILE);
    const decisions = existsSync(decisionsPath) ? readFileSync(decisionsPath, 'utf8').replace(/\r\n/g, '\n') : null;
    const changelogPath = resolve(context.root, CHANGELOG_FILE);
    const changelog = existsSync(changelogPath) ? readFileSync(changelogPath, 'utf8').replace(/\r\n/g, '\n') : null;
    const gettingStartedPath = resolve(context.root, GETTING_STARTED_FILE);
    const gettingStarted = existsSync(gettingStartedPath) ? readFileSync(gettingStartedPath, 'utf8').replace(/\r\n/g, '\n') : null;
    const document = docsDocument(complete, decisions, changelog, gettingStarted);
    context.write(`${DOCS_DIR}/index.html`, docsPage(document));
    context.write(`${DOCS_DIR}/description.js`, descriptionScript(document));
    context.write(`${DOCS_DIR}/console.html`, consolePage(escapeHtml(`${document.info?.title ?? 'API'} ${document.info?.version ?? ''}`.trim())));
    for (const name of SWAGGER_FILES) context.write(`${DOCS_DIR}/${name === 'LICENSE' || name === 'NOTICE' ? `${name}-swagger-ui.txt` : name}`, swaggerFile(name));
    context.write(`${DOCS_DIR}/redoc.standalone.js`, offlineRedocBundle());
    context.write(`${DOCS_DIR}/redoc.standalone.js.LICENSE.txt`, readFileSync(resolve(redocDir, 'bundles/redoc.standalone.js.LICENSE.txt')));
    context.write(`${DOCS_DIR}/LICENSE-redoc.txt`, readFileSync(resolve(redocDir, 'LICENSE')));
  },
};
