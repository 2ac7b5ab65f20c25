// prepack of @care-api/description: the bundles per environment and the offline docs site, copied from generated/
// to the package root, so tools take `node_modules/@care-api/description/care-api.sandbox.yaml` as is.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyGenerated } from '../../scripts/packages/copy-generated.ts';

const packageDir = fileURLToPath(new URL('.', import.meta.url));
rmSync(join(packageDir, 'docs'), { recursive: true, force: true });
copyGenerated(['care-api.yaml', 'care-api.production.yaml', 'care-api.sandbox.yaml', 'docs'], packageDir);
