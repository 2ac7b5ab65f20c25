// The webhook delivery queue in SQLite (D-17, D-65): one row per (event, subscription), worked off by the dispatcher.
// Every query the dispatcher runs per delivery is an index lookup, so its cost does not grow with the backlog:
// the head of one subscription comes from a partial index over pending rows, new rows are found by their rowid.
import type Database from 'better-sqlite3';
import type { Delivery, DeliveryStorage } from './types.ts';

const SCHEMA = `CREATE TABLE IF NOT EXISTS deliveries (id INTEGER PRIMARY KEY, env TEXT NOT NULL, event_id TEXT NOT NULL,
    webhook_id TEXT NOT NULL, attempt INTEGER NOT NULL, next_at INTEGER NOT NULL, state TEXT NOT NULL, last_status TEXT);
  CREATE INDEX IF NOT EXISTS deliveries_pending ON deliveries (webhook_id, next_at, id) WHERE state = 'pending';
  CREATE INDEX IF NOT EXISTS deliveries_event ON deliveries (event_id);
  DROP INDEX IF EXISTS deliveries_due;`;

const COLUMNS = 'id, env, event_id, webhook_id, attempt, next_at';

function toDelivery(r: any): Delivery {
  return { id: r.id, env: r.env, eventId: r.event_id, webhookId: r.webhook_id, attempt: r.attempt, nextAt: r.next_at };
}

export function openDeliveries(db: Database.Database): DeliveryStorage {
  db.exec(SCHEMA);
  const enqueue = db.prepare(`INSERT INTO deliveries (env, event_id, webhook_id, attempt, next_at, state) VALUES (?, ?, ?, 0, ?, 'pending')`);
  // ids are numbered per environment (D-90): a subscription is its environment and its id
  const head = db.prepare(`SELECT ${COLUMNS} FROM deliveries WHERE webhook_id = ? AND env = ? AND state = 'pending' ORDER BY next_at, id LIMIT 1`);
  // Rows after a known id, by rowid range: the cost is the number of new rows, not the size of the table.
  const headsSince = db.prepare(
    `SELECT env, webhook_id, min(next_at) AS t FROM (SELECT env, webhook_id, next_at FROM deliveries WHERE id > ? AND state = 'pending' ORDER BY id) GROUP BY env, webhook_id`,
  );
  const lastId = db.prepare('SELECT max(id) AS n FROM deliveries');
  const reschedule = db.prepare('UPDATE deliveries SET attempt = ?, next_at = ?, last_status = ? WHERE id = ?');
  const finish = db.prepare('UPDATE deliveries SET state = ?, last_status = ?, attempt = attempt + 1 WHERE id = ?');
  const ofEvent = db.prepare('SELECT webhook_id, state, attempt, last_status FROM deliveries WHERE event_id = ? AND (? IS NULL OR env = ?) ORDER BY id');

  return {
    enqueueDelivery(env, eventId, webhookId, nextAt) {
      enqueue.run(env, eventId, webhookId, nextAt);
    },
    headDelivery(env, webhookId) {
      const row = head.get(webhookId, env);
      return row ? toDelivery(row) : undefined;
    },
    pendingHeadsSince(afterId) {
      const last = ((lastId.get() as any).n as number | null) ?? 0;
      if (last <= afterId) return { lastId: afterId, heads: [] };
      const heads = (headsSince.all(afterId) as any[]).map((r) => ({ env: r.env, webhookId: r.webhook_id as string, nextAt: r.t as number }));
      return { lastId: last, heads };
    },
    rescheduleDelivery(id, attempt, nextAt, lastStatus) {
      reschedule.run(attempt, nextAt, lastStatus, id);
    },
    finishDelivery(id, outcome, lastStatus) {
      finish.run(outcome, lastStatus, id);
    },
    deliveries(eventId, env) {
      return (ofEvent.all(eventId, env ?? null, env ?? null) as any[]).map((r) => ({ webhookId: r.webhook_id, state: r.state, attempt: r.attempt, lastStatus: r.last_status }));
    },
  };
}
