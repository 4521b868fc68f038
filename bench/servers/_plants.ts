/**
 * Where a hand-written server keeps its plants: a `Map`, or, with `DATABASE_URL` (`npm run
 * bench:postgres`), PostgreSQL through a `pg` pool, with the statements a careful server sends.
 *
 * @module
 */
import { type BenchPlant, storePlant } from './_common.ts';

/** The pool size of every server of `npm run bench:postgres`. */
export const PG_POOL_MAX = 10;

/** Stores a plant if its id is new: true when stored or an identical replay, false on a conflict. */
export type SavePlant = (id: number, plant: BenchPlant) => boolean | Promise<boolean>;

const INSERT =
  'INSERT INTO plants (id, name, tag) VALUES ($1::bigint, $2::text, $3::text) ' +
  'ON CONFLICT (id) DO NOTHING RETURNING true AS created';
const SELECT = 'SELECT name, tag FROM plants WHERE id = $1::bigint';

/** The store of this server: in memory, or in `DATABASE_URL` when it is set. */
export async function openPlants(): Promise<SavePlant> {
  const url = process.env.DATABASE_URL;
  if (url === undefined) {
    const plants = new Map<number, BenchPlant>();
    return (id, plant) => storePlant(plants, id, plant);
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: PG_POOL_MAX });
  return async (id, { name, tag }) => {
    const inserted = await pool.query(INSERT, [String(id), name, tag ?? null]);
    if (inserted.rows.length > 0) return true;
    const { rows } = await pool.query<{ name: string; tag: string | null }>(SELECT, [String(id)]);
    return rows[0] !== undefined && rows[0].name === name && (rows[0].tag ?? undefined) === tag;
  };
}
