// The walls of docs/architecture.md, checked by dependency-cruiser with the repository's own rules
// (.dependency-cruiser.cjs): conformance and sandbox share no code, the store imports nothing of http, the grammar does
// no I/O, packages/ holds no source, no import cycles; only the SQLite storage reaches the case-list engine, and
// http/ imports no endpoint (issue 49). A second test gives the same rules a small tree that breaks each
// wall once, so a rule that matches nothing (a path typo) fails here too.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const config = join(root, '.dependency-cruiser.cjs');

async function violations(baseDir: string, targets: string[], options: ICruiseOptions, tsConfig?: unknown): Promise<IViolation[]> {
  const { output } = await cruise(targets, { ...options, validate: true, baseDir }, {}, tsConfig ? { tsConfig } : {});
  if (typeof output === 'string') throw new Error(output);
  return output.summary.violations;
}

const describeViolation = (v: IViolation) =>
  `${v.rule.name}: ${v.cycle ? [v.from, ...v.cycle.map((c) => c.name)].join(' → ') : `${v.from} → ${v.to}`}`;

describe('architecture walls (dependency-cruiser, .dependency-cruiser.cjs)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'care-walls-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('src/ and packages/ break none of the rules', async () => {
    const options = await extractDepcruiseOptions(config);
    const found = await violations(root, ['src', 'packages'], options, extractTSConfig(join(root, 'tsconfig.json')));
    expect(found.map(describeViolation)).toEqual([]);
  }, 120_000);

  it('each rule catches the wall it names when a tree breaks it', async () => {
    const files: Record<string, string> = {
      'src/conformance/check.ts': "import { x } from '../sandbox/app.ts';\nexport const y = x;\n",
      'src/sandbox/app.ts': "import { y } from '../conformance/check.ts';\nexport const x = 1; export const z = y;\n",
      'src/sandbox/store/page.ts': "import { body } from '../http/body.ts';\nexport const page = body;\n",
      'src/sandbox/http/body.ts': 'export const body = 1;\n',
      'src/grammar/parse.ts': "import { readFileSync } from 'node:fs';\nimport { body } from '../sandbox/http/body.ts';\nexport const p = [readFileSync, body];\n",
      'src/client/index.ts': "import { p } from '../grammar/parse.ts';\nimport { body } from '../sandbox/http/body.ts';\nexport const c = [p, body];\n",
      'src/spec/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
      'src/spec/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
      'src/diff/tool.ts': "import { helper } from '../../scripts/helper.ts';\nexport const t = helper;\n",
      'scripts/helper.ts': 'export const helper = 1;\n',
      'packages/client/build.ts': "import { c } from '../../src/client/index.ts';\nexport const built = c;\n",
      'packages/client/copy.ts': 'export const copied = 1;\n',
      'packages/sandbox/lib/app.ts': "import { x } from '../../../src/sandbox/app.ts';\nexport const again = x;\n",
      // the engine reads through its port (memory/source.ts) and may read the store's types, nothing else of it
      'src/sandbox/store/memory/engine.ts':
        "import type Database from 'better-sqlite3';\nimport { fromSql } from '../columns.ts';\nimport { open } from '../sqlite.ts';\nimport type { Scope } from '../types.ts';\nimport type { ListPlan } from '../list-plan.ts';\nimport type { CaseRowSource } from './source.ts';\nexport const e = [fromSql, open] as unknown as [Database, Scope, CaseRowSource, ListPlan];\n",
      'src/sandbox/store/memory/source.ts': 'export interface CaseRowSource { n: number }\n',
      'src/sandbox/store/columns.ts': 'export const fromSql = 1;\n',
      'src/sandbox/store/sqlite.ts': "import { fromSql } from './columns.ts';\nexport const open = fromSql;\n",
      // the edge (one body reader) is read by the two servers only, and reads no part
      'src/edge/body.ts': "import { x } from '../sandbox/app.ts';\nexport const read = x;\n",
      'src/mock/guard.ts': "import { read } from '../edge/body.ts';\nexport const g = read;\n",
      'src/conformance/http.ts': "import { read } from '../edge/body.ts';\nexport const h = read;\n",
      'src/sandbox/store/types.ts': "import type { Plan } from './memory/plan.ts';\nexport interface Scope { by: string; plan?: Plan }\n",
      'src/sandbox/store/list-plan.ts': 'export interface ListPlan { page: string }\n',
      'src/sandbox/store/memory/plan.ts': 'export type Plan = string;\n',
      'src/sandbox/store/sqlite-case-rows.ts': "import type { CaseRowSource } from './memory/source.ts';\nexport const rows = {} as CaseRowSource;\n",
      'src/sandbox/explain.ts': "import type { Plan } from './store/memory/plan.ts';\nexport const explain = (plan: Plan) => plan;\n",
      'src/sandbox/http/token.ts': "import { auth } from '../auth.ts';\nexport const token = auth;\n",
      'src/sandbox/auth.ts': 'export const auth = 1;\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    }
    const { ruleSet } = await extractDepcruiseOptions(config);
    const found = await violations(scratch, ['src', 'packages'], { ruleSet, tsPreCompilationDeps: true, doNotFollow: { path: 'node_modules' } });
    const named = new Set(found.map(describeViolation));
    for (const expected of [
      'conformance-not-sandbox: src/conformance/check.ts → src/sandbox/app.ts',
      'sandbox-not-conformance: src/sandbox/app.ts → src/conformance/check.ts',
      'store-not-http: src/sandbox/store/page.ts → src/sandbox/http/body.ts',
      'grammar-is-pure: src/grammar/parse.ts → fs',
      'base-layers-stay-below: src/grammar/parse.ts → src/sandbox/http/body.ts',
      'parts-stay-apart: src/client/index.ts → src/sandbox/http/body.ts',
      'src-not-tooling: src/diff/tool.ts → scripts/helper.ts',
      'packages-hold-no-source: packages/sandbox/lib/app.ts → src/sandbox/app.ts',
      'packages-hold-no-source-orphans: packages/client/copy.ts → packages/client/copy.ts',
      'engine-reads-through-its-port: src/sandbox/store/memory/engine.ts → better-sqlite3',
      'engine-reads-through-its-port: src/sandbox/store/memory/engine.ts → src/sandbox/store/columns.ts',
      'engine-reads-through-its-port: src/sandbox/store/memory/engine.ts → src/sandbox/store/sqlite.ts',
      'edge-stays-below: src/edge/body.ts → src/sandbox/app.ts',
      'edge-only-for-servers: src/conformance/http.ts → src/edge/body.ts',
      'engine-behind-the-store: src/sandbox/store/types.ts → src/sandbox/store/memory/plan.ts',
      'engine-behind-the-store: src/sandbox/explain.ts → src/sandbox/store/memory/plan.ts',
      'http-stays-below: src/sandbox/http/token.ts → src/sandbox/auth.ts',
    ]) expect(named, [...named].join('\n')).toContain(expected);
    expect([...named].filter((v) => /memory\/engine\.ts → .*(types|source|list-plan)\.ts/.test(v))).toEqual([]);
    // the store's implementation of the engine's port reaches it
    expect([...named].filter((v) => v.includes('sqlite-case-rows.ts'))).toEqual([]);
    expect([...named].some((v) => v.startsWith('no-cycles: src/spec/'))).toBe(true);
    // what the walls allow: a package's build.ts imports src/, the store's own modules import each other
    expect([...named].filter((v) => v.includes('packages/client/build.ts'))).toEqual([]);
    expect([...named].filter((v) => v.startsWith('edge-') && v.includes('src/mock/guard.ts'))).toEqual([]);
  }, 120_000);
});

// One router (D-95): the sandbox and the mock front route with the one compiled from the description in src/spec, so
// they cannot disagree on 404, 405 and Allow; no other module of theirs compiles path templates into patterns.
describe('one router', () => {
  const sources = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
    );

  it('the sandbox and the mock front import src/spec/routes.ts; no module of theirs compiles a route pattern', () => {
    for (const user of ['src/sandbox/app.ts', 'src/mock/front.ts']) {
      expect(readFileSync(join(root, user), 'utf8'), user).toMatch(/from '\.\.\/spec\/routes\.ts'/);
    }
    const compilers = ['src/spec', 'src/sandbox', 'src/mock'].flatMap(sources).filter((file) => readFileSync(join(root, file), 'utf8').includes("'([^/]+)'"));
    expect(compilers).toEqual([join('src', 'spec', 'routes.ts')]);
  });
});

describe('no dead paths (issue 49)', () => {
  it('Storage.list takes the list and nothing the storage ignores (the filter types the handlers computed are gone)', async () => {
    const { openSqliteStorage } = await import('../src/sandbox/store/sqlite.ts');
    const { loadSpec } = await import('../src/spec/index.ts');
    const store = openSqliteStorage(loadSpec(), { file: ':memory:', caseLists: 'sql' });
    try {
      // resource, environment, scope, query
      expect(store.list.length).toBe(4);
    } finally {
      store.close();
    }
  });
});
