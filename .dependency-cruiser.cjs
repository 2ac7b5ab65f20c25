// The walls of docs/architecture.md, checked by dependency-cruiser in npm test (test/architecture.test.ts).
// Run by hand: npx depcruise src packages
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No import cycles: a module and what it imports can be read, tested and moved apart.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'conformance-not-sandbox',
      comment: 'The suite judges an implementation it shares no code with (docs/architecture.md, Walls).',
      severity: 'error',
      from: { path: '^src/conformance/' },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'sandbox-not-conformance',
      comment: 'The sandbox shares no code with the suite that judges it (docs/architecture.md, Walls).',
      severity: 'error',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/conformance/' },
    },
    {
      name: 'store-not-http',
      comment: 'The storage layer has a narrow interface: it knows nothing of HTTP nor of the handlers.',
      severity: 'error',
      from: { path: '^src/sandbox/store/' },
      to: { path: '^src/sandbox/(http|handlers)/' },
    },
    {
      name: 'engine-reads-through-its-port',
      comment:
        'The case-list engine (store/memory/) reads cases through its port (memory/source.ts, implemented by ' +
        'store/sqlite-case-rows.ts): it knows nothing of SQLite, of its column mapping, nor of the other store modules ' +
        '(but the interface it answers, types.ts, and the plan description it fills, list-plan.ts).',
      severity: 'error',
      from: { path: '^src/sandbox/store/memory/' },
      to: { path: ['(^|/)better-sqlite3(/|$)', '^src/sandbox/store/[^/]+\\.ts$'], pathNot: '^src/sandbox/store/(types|list-plan)\\.ts$' },
    },
    {
      name: 'engine-behind-the-store',
      comment:
        'Only the SQLite storage (store/sqlite*.ts) opens the case-list engine, answers with it and implements its port: ' +
        'the storage interface (types.ts), the plan description it names (list-plan.ts) and the rest of the sandbox ' +
        '(explain.ts, the handlers) import nothing of store/memory/, so another engine could take its place (issue 49).',
      severity: 'error',
      from: { path: '^src/sandbox/', pathNot: '^src/sandbox/store/(memory/|sqlite[^/]*\\.ts$)' },
      to: { path: '^src/sandbox/store/memory/' },
    },
    {
      name: 'http-stays-below',
      comment:
        'src/sandbox/http/ (body, envelope, router, client errors) is read by the endpoints and imports none of them: ' +
        'an endpoint (the token service, the agent API, the handlers) sits beside the others, not in http/ (issue 49).',
      severity: 'error',
      from: { path: '^src/sandbox/http/' },
      to: { path: '^src/sandbox/', pathNot: '^src/sandbox/http/' },
    },
    {
      name: 'base-layers-stay-below',
      comment: 'src/spec and src/grammar are read by every part and import none of them.',
      severity: 'error',
      from: { path: '^src/(spec|grammar)/' },
      to: { path: '^src/(client|mock|sandbox|conformance|diff)/' },
    },
    {
      name: 'edge-stays-below',
      comment:
        'src/edge (the one request-body reader, D-100) sits below the servers: it imports Node and src/spec at most, ' +
        'never a part nor the grammar.',
      severity: 'error',
      from: { path: '^src/edge/' },
      to: { path: '^src/(client|mock|sandbox|conformance|diff|grammar)/' },
    },
    {
      name: 'edge-only-for-servers',
      comment: 'Only the two servers read request bodies: src/mock and src/sandbox may import src/edge, no other part.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(mock|sandbox|edge)/' },
      to: { path: '^src/edge/' },
    },
    {
      name: 'grammar-is-pure',
      comment: 'The grammar is pure: no I/O, so no Node built-ins.',
      severity: 'error',
      from: { path: '^src/grammar/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'parts-stay-apart',
      comment: 'The client, the mocks, the sandbox, the suite and the diff each build on spec/grammar/generated only.',
      severity: 'error',
      from: { path: '^src/(client|mock|sandbox|conformance|diff)/' },
      to: { path: '^src/(client|mock|sandbox|conformance|diff)/', pathNot: '^src/$1/' },
    },
    {
      name: 'src-not-tooling',
      comment: 'Source never reaches into packages/, scripts/, test/ or bench/: they are built from src, not the reverse.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(packages|scripts|test|bench)/' },
    },
    {
      name: 'packages-hold-no-source',
      comment: 'packages/ holds no source: a package is a build of src/ (its build.ts alone is code).',
      severity: 'error',
      from: { path: '^packages/', pathNot: '^packages/[^/]+/build\\.ts$' },
      to: {},
    },
    {
      name: 'packages-hold-no-source-orphans',
      comment: 'packages/ holds no source, not even a file that imports nothing.',
      severity: 'error',
      from: { orphan: true, path: '^packages/', pathNot: '^packages/[^/]+/build\\.ts$' },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/|^packages/description/docs/|^packages/[^/]+/node_modules/' },
    // type-only imports count: a cycle through a type is still a cycle for the reader
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mts', '.js', '.mjs', '.cjs', '.d.ts', '.json'],
    },
  },
};
