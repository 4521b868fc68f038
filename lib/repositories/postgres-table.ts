import {
  assertClient,
  type PostgresClient,
  type PostgresTableOptions,
  qualifiedTableName,
  rowsOf,
  sqlState,
} from './postgres-shared.ts';

const MAX_ATTEMPTS = 3;
// SQLSTATEs of two concurrent `CREATE TABLE IF NOT EXISTS` colliding in the catalog.
const CATALOG_RACE_CODES = new Set(['23505', '42P07', '42710']);

/**
 * Creates the plants table if it is missing, then checks that the table it finds can hold every
 * plant.
 *
 * The table is `sql/plants.sql`: `id bigint PRIMARY KEY, name text NOT NULL, tag text`. An
 * existing table is never altered; one that does not fit is refused at start rather than at the
 * first create. Safe to call at every start, from many processes at once.
 *
 * @param client The driver, as for `createPostgresRepository`.
 * @param options Where the table is: the repository's `table` and `schema`.
 * @returns Resolves once the table exists and fits; rejects with the driver's error, or with an
 *   `Error` naming each column that does not fit.
 * @throws {TypeError} Synchronously, for the same bad `client`, `table` or `schema` as
 *   `createPostgresRepository`.
 * @example
 * ```ts
 * import pg from 'pg';
 * import { ensurePlantTable } from 'plant-store/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await ensurePlantTable(pool, { table: 'plants', schema: 'public' });
 * ```
 */
export function ensurePlantTable(
  client: PostgresClient,
  options: PostgresTableOptions = {},
): Promise<void> {
  assertClient(client, 'ensurePlantTable');
  const table = qualifiedTableName(options, 'ensurePlantTable');
  return ensure(client, table);
}

async function ensure(client: PostgresClient, table: string): Promise<void> {
  const createSql = `CREATE TABLE IF NOT EXISTS ${table} (id bigint PRIMARY KEY, name text NOT NULL, tag text)`;
  for (let attempt = 1; ; attempt++) {
    try {
      await client.query(createSql, []);
      break;
    } catch (error) {
      // Two sessions running IF NOT EXISTS at once can both pass the check; the loser fails on a
      // catalog unique index. The winner has committed by then, so trying again finds the table.
      if (attempt >= MAX_ATTEMPTS || !CATALOG_RACE_CODES.has(sqlState(error))) throw error;
    }
  }
  const columns = rowsOf(await client.query(describeSql, [table])) as ColumnRow[];
  const problems = tableProblems(columns);
  if (problems.length > 0) {
    throw new Error(
      `plant-store/postgres: the table ${table} cannot hold plants: ${problems.join('; ')}`,
    );
  }
  // Planning and starting this no-op insert checks that the role may insert into the table.
  await client.query(
    `INSERT INTO ${table} (id, name, tag) SELECT NULL::bigint, NULL::text, NULL::text WHERE false ON CONFLICT (id) DO NOTHING`,
    [],
  );
}

/** One column of the table as `describeSql` reads it from the catalog. */
interface ColumnRow {
  readonly column: string;
  readonly type: string;
  readonly notNull: boolean;
  readonly hasDefault: boolean;
  readonly primaryKey: boolean;
}

// `to_regclass` resolves the quoted name through the search_path exactly as the insert does.
const describeSql = `SELECT a.attname::text AS "column", format_type(a.atttypid, a.atttypmod) AS "type",
  a.attnotnull AS "notNull", (a.atthasdef OR a.attidentity <> '') AS "hasDefault",
  EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary
    AND i.indnkeyatts = 1 AND i.indkey[0] = a.attnum) AS "primaryKey"
FROM pg_attribute a
WHERE a.attrelid = to_regclass($1::text) AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`;

// Text of any length: `varchar` without a limit is the same type to PostgreSQL.
const UNLIMITED_TEXT = new Set(['text', 'character varying']);

/** What keeps the table from holding every plant, one sentence per column; empty when it fits. */
function tableProblems(columns: readonly ColumnRow[]): string[] {
  const byName = new Map(columns.map((column) => [column.column, column]));
  const problems: string[] = [];
  const id = byName.get('id');
  if (id === undefined) problems.push('column id is missing');
  else {
    if (id.type !== 'bigint') problems.push(`column id is ${id.type}; it must be bigint (int8)`);
    if (!id.primaryKey) problems.push('column id must be the primary key, alone');
  }
  const name = byName.get('name');
  if (name === undefined) problems.push('column name is missing');
  else {
    if (!UNLIMITED_TEXT.has(name.type)) {
      problems.push(`column name is ${name.type}; it must be text, without a length limit`);
    }
    if (!name.notNull) problems.push('column name must be NOT NULL');
  }
  const tag = byName.get('tag');
  if (tag === undefined) problems.push('column tag is missing');
  else {
    if (!UNLIMITED_TEXT.has(tag.type)) {
      problems.push(`column tag is ${tag.type}; it must be text, without a length limit`);
    }
    if (tag.notNull) problems.push('column tag must allow NULL (a plant may have no tag)');
  }
  for (const column of columns) {
    if (['id', 'name', 'tag'].includes(column.column)) continue;
    if (column.notNull && !column.hasDefault) {
      problems.push(
        `column ${column.column} is NOT NULL without a default, so a create cannot fill it`,
      );
    }
  }
  return problems;
}
