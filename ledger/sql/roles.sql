-- Least-privilege database roles for the card room (docs/ledger.md, "Database roles").
-- Made by `manage.py db_roles setup`. Run it once as a superuser, connected to the database
-- casino (safe to run again): psql -U postgres -d casino -v ON_ERROR_STOP=1 -f <this>
-- Then migrate with DATABASE_OWNER_URL set (make setup): migrate runs as the owner and grants
-- the app's role its rights on every table (`manage.py db_roles grant` does that alone).
BEGIN;

-- The owner owns the schema and the tables and runs migrate; the app's role only logs in.
DO $roles$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'casino_owner') THEN
        CREATE ROLE "casino_owner";
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'casino_app') THEN
        CREATE ROLE "casino_app";
    END IF;
    -- A member of the owner could SET ROLE to it and have the owner's rights.
    IF EXISTS (
        SELECT FROM pg_auth_members m
        WHERE m.roleid = 'casino_owner'::regrole AND m.member = 'casino_app'::regrole
    ) THEN
        REVOKE "casino_owner" FROM "casino_app";
    END IF;
END
$roles$;
ALTER ROLE "casino_owner" LOGIN NOSUPERUSER NOCREATEROLE NOREPLICATION NOBYPASSRLS;
ALTER ROLE "casino_app" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;

-- The database and its schema belong to the owner, and so does whatever an earlier migrate
-- made as another role (a sequence that belongs to a column follows its table).
ALTER DATABASE "casino" OWNER TO "casino_owner";
ALTER SCHEMA public OWNER TO "casino_owner";
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
DO $owned$
DECLARE
    item record;
BEGIN
    FOR item IN
        SELECT c.oid::regclass AS name,
               CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW'
                              WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END AS kind
        FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace
          AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
          AND c.relowner <> 'casino_owner'::regrole
          AND NOT EXISTS (
              SELECT FROM pg_depend d
              WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                AND d.deptype IN ('a', 'i', 'e')
          )
    LOOP
        EXECUTE format('ALTER %s %s OWNER TO %I', item.kind, item.name, 'casino_owner');
    END LOOP;
    FOR item IN
        SELECT p.oid::regprocedure AS name
        FROM pg_proc p
        WHERE p.pronamespace = 'public'::regnamespace
          AND p.proowner <> 'casino_owner'::regrole
          AND NOT EXISTS (
              SELECT FROM pg_depend d
              WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
          )
    LOOP
        EXECUTE format('ALTER ROUTINE %s OWNER TO %I', item.name, 'casino_owner');
    END LOOP;
END
$owned$;

-- The app connects and sees the schema. What the owner makes from now on (migrate) the app may
-- read and add rows to at once; `manage.py db_roles grant` gives the rest, table by table.
GRANT CONNECT ON DATABASE "casino" TO "casino_app";
GRANT USAGE ON SCHEMA public TO "casino_app";
ALTER DEFAULT PRIVILEGES FOR ROLE "casino_owner" IN SCHEMA public GRANT SELECT, INSERT ON TABLES TO "casino_app";
ALTER DEFAULT PRIVILEGES FOR ROLE "casino_owner" IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO "casino_app";

COMMIT;
