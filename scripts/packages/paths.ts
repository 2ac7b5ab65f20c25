// Where the package builds read from: the repository root (the contract-first workspace) and its generated/.
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const generatedDir = fileURLToPath(new URL('../../generated/', import.meta.url));
