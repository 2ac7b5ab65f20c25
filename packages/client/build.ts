// prepack of @care-api/client: tsc compiles src/client (and the grammar and generated modules it imports) to
// dist/ as ESM with .d.ts; the description's types (generated/care-api.d.ts) are copied beside them.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { compileLibrary } from '../../scripts/packages/compile-library.ts';
import { copyGenerated } from '../../scripts/packages/copy-generated.ts';
import { checkDependencies } from '../../scripts/packages/dependencies.ts';

const packageDir = fileURLToPath(new URL('.', import.meta.url));
const { imports } = compileLibrary({ packageDir, tsconfig: 'tsconfig.json' });
copyGenerated(['care-api.d.ts'], join(packageDir, 'dist', 'generated'));
checkDependencies(packageDir, imports);
