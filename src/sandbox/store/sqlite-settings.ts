// The small tables of the SQLite storage: settings, id sequences, organisations and their contacts.
import type Database from 'better-sqlite3';
import type { Org, Storage } from './types.ts';

export function settingRows(prepare: (sql: string) => Database.Statement): Pick<Storage, 'nextId' | 'getSetting' | 'setSetting' | 'insertOrg' | 'getOrg' | 'listOrgs' | 'addContact' | 'contactsOf'> {
  return {
    nextId(prefix, start = 1, env) {
      // An environment's sequence is keyed `PREFIX@env` and begins after the shared one (seeded data uses that).
      const row = prepare(
        `INSERT INTO sequences (prefix, value) VALUES (?, max(?, coalesce((SELECT value FROM sequences WHERE prefix = ?), 0) + 1))
         ON CONFLICT (prefix) DO UPDATE SET value = value + 1 RETURNING value`,
      ).get(env ? `${prefix}@${env}` : prefix, start, prefix) as any;
      return prefix + String(row.value).padStart(7, '0');
    },
    getSetting: (key) => (prepare('SELECT value FROM settings WHERE key = ?').get(key) as any)?.value,
    setSetting: (key, value) => void prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value),

    insertOrg: (env, org) => void prepare('INSERT INTO orgs (env, id, name, kind) VALUES (?, ?, ?, ?)').run(env, org.id, org.name, org.kind),
    getOrg: (env, id) => prepare('SELECT id, name, kind FROM orgs WHERE env = ? AND id = ?').get(env, id) as Org | undefined,
    listOrgs: (env) => prepare('SELECT id, name, kind FROM orgs WHERE env = ? ORDER BY id').all(env) as Org[],
    addContact: (env, org, email) => void prepare('INSERT OR IGNORE INTO contacts (env, org, email) VALUES (?, ?, ?)').run(env, org, email),
    contactsOf: (env, org) => (prepare('SELECT email FROM contacts WHERE env = ? AND org = ? ORDER BY rowid').all(env, org) as any[]).map((r) => r.email),
  };
}
