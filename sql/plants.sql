-- The table plant-store/postgres stores plants in: what ensurePlantTable creates when it is
-- missing, and what it checks at every start. Run it once as a role that may create tables
-- (psql "$DATABASE_URL" -f sql/plants.sql); the app's own role then needs only SELECT and INSERT.
-- The name is the repository's default, `plants`, in the connection's search_path. If you pass
-- createPostgresRepository and ensurePlantTable another `table` (or a `schema`), write that name
-- here instead, double-quoted as they quote it: { table: 'Plants', schema: 'garden' } is
-- "garden"."Plants". The standalone server uses the table PLANT_STORE_TABLE names (default
-- `plants`) in the search_path.
CREATE TABLE IF NOT EXISTS plants (
  id bigint PRIMARY KEY,
  name text NOT NULL,
  tag text
);
