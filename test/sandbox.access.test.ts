// The contracts an account controls are read on every request and kept per contracts-table version: a write, a
// reassignment or a rolled-back transaction must show at once.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { controlledContracts } from '../src/sandbox/access.ts';
import { openSqliteStorage } from '../src/sandbox/store/sqlite.ts';
import type { Storage } from '../src/sandbox/store/types.ts';
import { spec } from './helpers/sandbox.ts';

let store: Storage;
const partner = { id: 'ORG0000002', kind: 'partner' as const };
const at = '2026-01-01T00:00:00.000Z';

function addContract(id: string, partnerOrg: string | null): void {
  const org = (orgId: string) => ({ id: orgId, name: orgId });
  store.insert(
    'contracts',
    'sandbox',
    { id, name: id, customer: org('ORG0000001'), partner: partnerOrg ? org(partnerOrg) : null, externalReference: null, createdAt: at, updatedAt: at },
    { customerOrg: 'ORG0000001', partnerOrg },
  );
}

beforeEach(() => {
  store = openSqliteStorage(spec, { file: ':memory:', caseLists: 'sql' });
  addContract('CT0000101', partner.id);
});
afterEach(() => store.close());

describe('controlledContracts', () => {
  it('answers the same contracts again while the contracts table is unchanged, and a new one after a write', () => {
    expect(controlledContracts(store, 'sandbox', partner)).toEqual(['CT0000101']);
    expect(controlledContracts(store, 'sandbox', partner)).toEqual(['CT0000101']);
    addContract('CT0000102', partner.id);
    expect(controlledContracts(store, 'sandbox', partner)).toEqual(['CT0000101', 'CT0000102']);
    store.update('contracts', 'sandbox', 'CT0000101', {}, { partnerOrg: 'ORG0000009' });
    expect(controlledContracts(store, 'sandbox', partner)).toEqual(['CT0000102']);
  });

  it('forgets what it read inside a transaction that was rolled back', () => {
    expect(() =>
      store.transaction(() => {
        addContract('CT0000103', partner.id);
        expect(controlledContracts(store, 'sandbox', partner)).toEqual(['CT0000101', 'CT0000103']);
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(controlledContracts(store, 'sandbox', partner)).toEqual(['CT0000101']);
  });

  it('forgets what it read inside a nested transaction rolled back to its savepoint, the outer one going on', () => {
    store.transaction(() => {
      expect(() =>
        store.transaction(() => {
          addContract('CT0000104', partner.id);
          expect(controlledContracts(store, 'sandbox', partner)).toEqual(['CT0000101', 'CT0000104']);
          throw new Error('roll back the savepoint');
        }),
      ).toThrow('roll back the savepoint');
      expect(controlledContracts(store, 'sandbox', partner)).toEqual(['CT0000101']);
    });
  });
});
