// One sandbox per database file (D-86): each process keeps its own in-memory list index, so a second process on the
// same file would answer lists that miss the first one's writes. A lock file beside the database names the holder;
// a second start is refused at once with that name. A lock left by a process that is gone (crash, kill -9) is taken
// over: "gone" is a pid that no longer runs or, on Linux, now runs a process started at another time (pid reuse).
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';

interface LockHolder {
  pid: number;
  host: string;
  /** Linux: the process's start time in clock ticks since boot (field 22 of /proc/PID/stat), to tell pid reuse. */
  started?: string;
  /** The URL it listens on, once it does. */
  url?: string;
}

export class DatabaseInUseError extends Error {}

/** Linux: state and start time (fields 3 and 22 of /proc/PID/stat); undefined elsewhere or when there is no such process. */
function procStat(pid: number | 'self'): { state: string; started: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // after "(comm) ": field 3 is index 0
    return { state: fields[0], started: fields[19] };
  } catch {
    return undefined;
  }
}

function stillHeld(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true; // a process on another machine (shared disk): cannot be checked
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false; // ESRCH: no such process
  }
  const now = procStat(holder.pid);
  if (now?.state === 'Z') return false; // exited, not yet reaped by its parent
  return holder.started === undefined || now === undefined || now.started === holder.started;
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8'));
    return Number.isInteger(holder?.pid) ? holder : undefined;
  } catch {
    return undefined; // gone meanwhile, or half-written by a process that died while writing it
  }
}

export interface DatabaseLock {
  readonly file: string;
  /** Record the URL the holder listens on (shown to a second start). */
  setUrl(url: string): void;
  release(): void;
}

/** Take `${database}.lock`, or throw DatabaseInUseError naming the database and the process that holds it. */
export function lockDatabase(database: string): DatabaseLock {
  const file = `${database}.lock`;
  mkdirSync(dirname(file), { recursive: true });
  const me: LockHolder = { pid: process.pid, host: hostname(), started: procStat('self')?.started };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(file);
      if (holder && stillHeld(holder)) {
        throw new DatabaseInUseError(
          `the database ${database} is in use by process ${holder.pid}${holder.url ? ` (care-sandbox on ${holder.url})` : ''}`
            + `${holder.host !== me.host ? ` on ${holder.host}` : ''}. One sandbox per database: stop that one, or start this one`
            + ` with another --db FILE or --memory. (Lock file: ${file}.)`,
        );
      }
      // Stale (its process is gone) or unreadable. Moved aside rather than deleted: a rival start may have replaced
      // it with a live lock since it was read, and a live lock moved aside by mistake is put back.
      if (attempt > 3) throw new DatabaseInUseError(`the database ${database} is being locked by another start (lock file ${file}); try again`);
      const aside = `${file}.${process.pid}`;
      try {
        renameSync(file, aside);
      } catch {
        continue; // another start moved it first
      }
      const moved = readHolder(aside);
      const sameAsRead = holder && moved && moved.pid === holder.pid && moved.started === holder.started;
      if (moved && !sameAsRead && stillHeld(moved)) {
        try {
          linkSync(aside, file); // never overwrites: fails if a lock exists again
        } catch {
          /* a third start holds it now; the loop reads it */
        }
      }
      unlinkSync(aside);
    }
  }
  const write = () => {
    // replaced in place: the lock file is ours, so no other process writes it
    const fd = openSync(file, 'w');
    writeSync(fd, JSON.stringify(me));
    closeSync(fd);
  };
  const release = () => {
    if (readHolder(file)?.pid !== process.pid) return;
    try {
      unlinkSync(file);
    } catch {
      /* already gone */
    }
  };
  process.once('exit', release);
  return {
    file,
    setUrl(url) {
      me.url = url;
      write();
    },
    release,
  };
}
