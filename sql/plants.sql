-- The table plant-store/postgres stores plants in: what ensurePlantTable creates when it is
-- missing, and what it checks at every start. Run it once as a role that may create tables
-- (psql "$DATABASE_URL" -f sql/plants.sql); the app's own role then needs only SELECT and INSERT.
CREATE TABLE IF NOT EXISTS plants (
  id bigint PRIMARY KEY,
  name text NOT NULL,
  tag text
);
