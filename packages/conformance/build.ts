// prepack of @care-api/conformance: esbuild bundles src/conformance/cli.ts (with src/spec, src/grammar and the
// pure-JavaScript libraries it uses) into dist/src/conformance/cli.js, the `care-conformance` bin; the bundles it
// reads go to dist/generated/.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { bundleCli } from '../../scripts/packages/bundle-cli.ts';
import { copyGenerated } from '../../scripts/packages/copy-generated.ts';
import { checkDependencies } from '../../scripts/packages/dependencies.ts';

const packageDir = fileURLToPath(new URL('.', import.meta.url));
const { imports } = await bundleCli({ packageDir, entry: 'src/conformance/cli.ts', external: [] });
copyGenerated(['care-api.yaml', 'care-api.production.yaml', 'care-api.sandbox.yaml'], join(packageDir, 'dist', 'generated'));
checkDependencies(packageDir, imports);
