// prepack of @care-api/sandbox: esbuild bundles src/sandbox/cli.ts (with src/spec, src/grammar and the
// pure-JavaScript libraries it uses) into dist/src/sandbox/, the `care-sandbox` bin; better-sqlite3 is native code
// and stays a dependency. The bundles and the docs site it serves go to dist/generated/.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { bundleCli } from '../../scripts/packages/bundle-cli.ts';
import { copyGenerated } from '../../scripts/packages/copy-generated.ts';
import { checkDependencies } from '../../scripts/packages/dependencies.ts';

const packageDir = fileURLToPath(new URL('.', import.meta.url));
const { imports } = await bundleCli({ packageDir, entry: 'src/sandbox/cli.ts', external: ['better-sqlite3'] });
copyGenerated(['care-api.yaml', 'care-api.production.yaml', 'care-api.sandbox.yaml', 'docs'], join(packageDir, 'dist', 'generated'));
checkDependencies(packageDir, imports);
