// Creates that arrive while statements are in flight wait and go together in the next one, each
// still getting its own exact outcome.

import type { CreatePlantOutcome, NewPlant, Plant } from '../types.ts';
import { failureOf, storeError } from './postgres-failures.ts';
import { isPool, onLoan } from './postgres-loan.ts';
import { PendingCreate } from './postgres-pending-create.ts';
import {
  type PostgresClient,
  type PostgresPool,
  type PreparingPostgresClient,
  rowsOf,
  sqlState,
} from './postgres-shared.ts';
import { malformedText } from './well-formed-plant.ts';

// Insert, then read: a row deleted between the two is inserted again, this many attempts in all.
const MAX_ATTEMPTS = 3;

// Behind a pooler that moves statements between server connections (PgBouncer in transaction
// mode) PostgreSQL refuses a name, having run nothing: unknown (26000) or taken (42P05).
const PREPARED_STATEMENT_LOST = new Set(['26000', '42P05']);

/** How a repository sends its creates. */
export interface BatchSettings {
  readonly maxBatchSize: number;
  readonly maxInFlight: number;
  readonly prepare: boolean;
}

export class CreateBatches {
  readonly #client: PostgresClient;
  readonly #pool: PostgresPool | undefined;
  /** Off for good once a pooler is found to lose named statements. */
  #prepare: boolean;
  readonly #maxBatchSize: number;
  readonly #insertSql: string;
  readonly #insertOneSql: string;
  readonly #readSql: string;
  readonly #readOneSql: string;
  readonly #waiting: PendingCreate[] = [];
  readonly #maxInFlight: number;
  #inFlight = 0;

  constructor(client: PostgresClient, table: string, settings: BatchSettings) {
    this.#client = client;
    this.#pool = isPool(client) ? client : undefined;
    this.#prepare = settings.prepare;
    this.#maxBatchSize = settings.maxBatchSize;
    this.#maxInFlight = settings.maxInFlight;
    this.#insertSql = `INSERT INTO ${table} (id, name, tag) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[]) ON CONFLICT (id) DO NOTHING RETURNING id::text AS id`;
    // A batch of one, the idle case, costs the database less as a plain VALUES row.
    this.#insertOneSql = `INSERT INTO ${table} (id, name, tag) VALUES ($1::bigint, $2::text, $3::text) ON CONFLICT (id) DO NOTHING RETURNING id::text AS id`;
    // Each text comes back behind a '.' that `toPlant` cuts off: some drivers (PGlite) drop a
    // leading U+FEFF, which would turn a replay into a 409. NULL || '.' stays NULL.
    const read = `SELECT id::text AS id, '.' || name AS name, '.' || tag AS tag FROM ${table}`;
    this.#readSql = `${read} WHERE id = ANY($1::bigint[])`;
    this.#readOneSql = `${read} WHERE id = $1::bigint`;
  }

  create(plant: NewPlant, signal: AbortSignal | undefined): Promise<CreatePlantOutcome> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const malformed = malformedText(plant, 'plant-store/postgres');
    if (malformed !== undefined) return Promise.reject(malformed);
    return new Promise((resolve, reject) => {
      const pending = new PendingCreate(plant, signal, resolve, reject);
      if (this.#inFlight < this.#maxInFlight) {
        // Unwatched: its statement answers soon, and its signal is checked before any other.
        this.#start([pending]);
      } else {
        pending.watch(this.#drop);
        this.#waiting.push(pending);
      }
    });
  }

  /** A create aborted while it waited is never sent. */
  readonly #drop = (pending: PendingCreate): void => {
    const index = this.#waiting.indexOf(pending);
    if (index >= 0) this.#waiting.splice(index, 1);
  };

  #sendNext(): void {
    const batch = this.#waiting.splice(0, this.#maxBatchSize);
    if (batch.length > 0) this.#start(batch);
  }

  #start(batch: PendingCreate[]): void {
    this.#inFlight += 1;
    const next = () => {
      this.#inFlight -= 1;
      this.#sendNext();
    };
    this.#send(batch).then(next, next);
  }

  /** Settles every create of the batch, on one connection; never rejects. */
  async #send(batch: PendingCreate[]): Promise<void> {
    try {
      if (this.#pool === undefined) await this.#store(this.#client, batch);
      // A create whose signal fired while the pool made it wait is not sent (`#store` looks).
      else await onLoan(this.#pool, (connection) => this.#store(connection, batch));
    } catch (error) {
      // One error object for every create it fails: the store reports it once.
      const reason = storeError(error);
      for (const pending of batch) pending.fail(reason);
    }
  }

  /** Stores the batch; a bad row fails only its own create, any other error all of them. */
  async #store(client: PostgresClient, batch: PendingCreate[]): Promise<void> {
    const live = batch.filter((pending) => !pending.settled());
    try {
      await this.#insert(client, live);
    } catch (error) {
      if (live.length === 1 || failureOf(error) !== 'data') throw error;
      // Each create again alone, in turn on this connection: only the bad row fails, and no more
      // statements are in flight.
      for (const pending of live) {
        try {
          await this.#insert(client, [pending]);
        } catch (error) {
          if (failureOf(error) !== 'data') throw error;
          pending.fail(error);
        }
      }
    }
  }

  /** Inserts the creates' rows and reads the plants under the ids taken; throws if one fails. */
  async #insert(client: PostgresClient, sent: PendingCreate[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      // A create whose signal fired since it was last looked at goes no further.
      const batch = sent.filter((pending) => !pending.settled());
      if (batch.length === 0) return;
      // Each id once, the first create of it, in one fixed order (the ids' text): concurrent
      // batches then lock the rows they share in the same order and never deadlock.
      const firsts = new Map<string, PendingCreate>();
      for (const pending of batch) if (!firsts.has(pending.id)) firsts.set(pending.id, pending);
      const rows = [...firsts.values()].sort(byId);
      const [one] = rows;
      const result =
        rows.length === 1 && one !== undefined
          ? await this.#query(client, this.#insertOneSql, [one.id, one.name, one.tag])
          : await this.#query(client, this.#insertSql, [
              rows.map((row) => row.id),
              rows.map((row) => row.name),
              rows.map((row) => row.tag),
            ]);
      const inserted = new Set(result.map(insertedId));
      const taken: PendingCreate[] = [];
      for (const pending of batch) {
        const first = firsts.get(pending.id) as PendingCreate;
        if (!inserted.has(pending.id)) taken.push(pending);
        else if (pending === first) pending.succeed({ created: true });
        else pending.succeed({ created: false, existing: first.plant });
      }
      const live = taken.filter((pending) => !pending.settled());
      if (live.length === 0) return;
      // A separate statement, hence a fresh READ COMMITTED snapshot that sees the rows the insert
      // conflicted with: do not fold this into the insert as a CTE.
      const found = new Map<string, Plant>();
      const ids = [...new Set(live.map((pending) => pending.id))];
      const read =
        ids.length === 1
          ? this.#query(client, this.#readOneSql, ids)
          : this.#query(client, this.#readSql, [ids]);
      for (const row of await read) found.set(...toPlant(row));
      const vanished: PendingCreate[] = [];
      for (const pending of live) {
        const existing = found.get(pending.id);
        if (existing === undefined) vanished.push(pending);
        else pending.succeed({ created: false, existing });
      }
      if (vanished.length === 0) return;
      // Deleted between the two statements: the id is free again, so insert once more.
      sent = vanished;
      if (attempt < MAX_ATTEMPTS) continue;
      for (const pending of vanished) {
        pending.fail(
          new Error(
            `plant-store/postgres: the plant under id ${pending.id} was deleted during every one of ${MAX_ATTEMPTS} attempts to create it`,
          ),
        );
      }
      return;
    }
  }

  /** Runs one statement; a driver that throws rather than rejects is a rejection too. */
  async #query(
    client: PostgresClient,
    text: string,
    values: unknown[],
  ): Promise<readonly unknown[]> {
    if (this.#prepare) {
      const preparing = client as unknown as PreparingPostgresClient;
      try {
        return rowsOf(await preparing.query({ name: statementName(text), text, values }));
      } catch (error) {
        if (!PREPARED_STATEMENT_LOST.has(sqlState(error))) throw error;
        // Nothing ran: the same statement again, unnamed, and every later one too.
        this.#prepare = false;
      }
    }
    return rowsOf(await client.query(text, values));
  }
}

/** The name of each statement text, the same for every repository of this module. */
const statementNames = new Map<string, string>();
// Another copy of this module in the process (a second version of the package sharing a pool)
// counts from 1 too: the prefix keeps the two from giving one name two texts on one connection.
const NAME_PREFIX = `plant_store_${Math.random().toString(36).slice(2, 8)}_`;

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `${NAME_PREFIX}${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

function byId(a: PendingCreate, b: PendingCreate): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function insertedId(row: unknown): string {
  const id = (row as { id?: unknown } | null)?.id;
  if (typeof id !== 'string') throw wrongShape();
  return id;
}

function toPlant(row: unknown): [string, Plant] {
  const { id, name, tag } = (row ?? {}) as { id?: unknown; name?: unknown; tag?: unknown };
  if (typeof id !== 'string' || !isMarked(name) || (tag !== null && !isMarked(tag))) {
    throw wrongShape();
  }
  // A NULL tag is a plant created without one: the key is left out, not set to undefined.
  return [id, tag === null ? { name: name.slice(1) } : { name: name.slice(1), tag: tag.slice(1) }];
}

function isMarked(text: unknown): text is string {
  return typeof text === 'string' && text.startsWith('.');
}

function wrongShape(): TypeError {
  return new TypeError('plant-store/postgres: the plants table returned a row of the wrong shape');
}
