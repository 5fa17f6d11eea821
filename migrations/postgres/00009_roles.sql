-- +goose Up
-- Roles (issue 37, docs/team.md "Roles"): each machine writes only its own
-- rows, and PostgreSQL, not pidex, holds it to that. A role may push the
-- machines machine_roles binds to it (current_user; the binding is data
-- only the catalog's owner writes); row-level security on every table a
-- push writes lets it insert, change and delete only their rows, and lets
-- everyone read every row. The owner of the tables (who migrates them)
-- is not held by the policies. The groups a pushing and a reading role
-- join are named in team_roles, and pidex_grant() gives them exactly their
-- privileges (pidex team init --apply calls it, and so does every migration
-- run by a pidex that knows this one).

-- Which role may push which machine. A role is bound by name: the policies
-- compare it with current_user (a role may SET ROLE only to the roles it is
-- a member of, so it cannot take another developer's name).
CREATE TABLE machine_roles (
    machine text COLLATE "C" NOT NULL,
    role    name NOT NULL,
    PRIMARY KEY (machine, role)
);
CREATE INDEX machine_roles_role ON machine_roles (role);

-- The groups of the team catalog: 'push', the group of the roles that push
-- (each held to its machines), 'read', the group of those that only read.
CREATE TABLE team_roles (
    role name PRIMARY KEY,
    may  text COLLATE "C" NOT NULL CHECK (may IN ('push', 'read'))
);

-- The push locks, in place of advisory locks, which any role can take and
-- hold (a reader could stall every push): a row lock needs UPDATE on the
-- table, which only pushing roles have, and a machine's row only its
-- roles may lock. push_locks: one push of a machine at a time (held for
-- the push); calls_lock: the cross-machine call flags are derived by one
-- transaction at a time (taken before any usage row is deleted).
CREATE TABLE push_locks (
    machine_id integer PRIMARY KEY REFERENCES machines ON DELETE CASCADE
);
INSERT INTO push_locks (machine_id) SELECT id FROM machines;
CREATE TABLE calls_lock (
    one boolean PRIMARY KEY DEFAULT true CHECK (one)
);
INSERT INTO calls_lock VALUES (true);

-- What the catalog's migrations were, by content: a pidex whose migration
-- of a number differs (another line of development), or that lacks one
-- the catalog holds, refuses it and names the pidex that applied it.
-- Written by the migrating role after it migrates (goose records only the
-- numbers).
CREATE TABLE migration_sums (
    version    bigint PRIMARY KEY,
    file       text COLLATE "C" NOT NULL,
    sha256     text COLLATE "C" NOT NULL,
    applied_by text COLLATE "C" NOT NULL DEFAULT ''
);

-- Row-level security on every table a push writes: everyone reads every
-- row; a role writes the rows of the machines bound to it. The condition
-- is written out in each policy (not a function), so PostgreSQL binds its
-- tables when the policy is made: no temporary table of a role's own
-- named machines or machine_roles can stand in for them.
-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['push_state', 'push_locks', 'files', 'sessions', 'entries', 'entry_lines', 'entry_text',
        'text_index', 'edges', 'labels', 'usage', 'usage_rollup', 'usage_rollup_hour', 'tool_calls', 'warnings',
        'session_activity', 'activity', 'activity_tools', 'activity_file', 'activity_tools_file', 'activity_events'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY pidex_read ON %I FOR SELECT USING (true)', t);
        EXECUTE format('CREATE POLICY pidex_own ON %I FOR ALL
            USING (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user))
            WITH CHECK (machine_id IN (SELECT m.id FROM machines m JOIN machine_roles r ON r.machine = m.name WHERE r.role = current_user))', t);
    END LOOP;
END $$;
-- +goose StatementEnd
ALTER TABLE machines ENABLE ROW LEVEL SECURITY;
CREATE POLICY pidex_read ON machines FOR SELECT USING (true);
CREATE POLICY pidex_own ON machines FOR ALL
    USING (name IN (SELECT machine FROM machine_roles WHERE role = current_user))
    WITH CHECK (name IN (SELECT machine FROM machine_roles WHERE role = current_user));

-- The cross-machine call flags (usage_xm, 00001) are derived from every
-- machine's usage rows, so a push rewrites rows of other machines' files:
-- it does so only through this function, which runs as the owner and
-- derives them (for the calls of the touched entry ids) from the rows as
-- they are, so a role that calls it cannot write anything else there. A
-- body in SQL (BEGIN ATOMIC) is bound when it is made: no search_path
-- can lead it to other tables.
-- +goose StatementBegin
CREATE FUNCTION pidex_derive_calls(touched text[]) RETURNS void
LANGUAGE sql SECURITY DEFINER
BEGIN ATOMIC
    SELECT one FROM calls_lock FOR UPDATE;
    DELETE FROM usage_xm x USING usage u
     WHERE u.file_id = x.file_id AND u."offset" = x."offset" AND u.entry_id = ANY (touched);
    INSERT INTO usage_xm (file_id, "offset", is_copy, call_active)
    SELECT file_id, "offset", g_copy, g_active FROM (
        SELECT u.file_id, u."offset", u.is_copy, u.call_active,
               row_number() OVER (call ORDER BY COALESCE(s.created_ms, 0), f.path, m.name, u."offset") > 1 AS g_copy,
               bool_or(u.on_path) OVER call AS g_active
          FROM usage u JOIN files f ON f.id = u.file_id JOIN machines m ON m.id = f.machine_id
          LEFT JOIN sessions s ON s.file_id = u.file_id
         WHERE u.entry_id IN (SELECT entry_id FROM usage WHERE entry_id = ANY (touched)
                GROUP BY entry_id HAVING count(DISTINCT machine_id) > 1)
        WINDOW call AS (PARTITION BY u.entry_id, u.source, u.ts_ms, u.input, u.output, u.cache_read, u.cache_write)) k
     WHERE (g_copy, g_active) IS DISTINCT FROM (is_copy, call_active);
END;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION pidex_derive_calls(text[]) FROM PUBLIC;

-- The privileges of the groups in team_roles, on everything in this
-- schema: both read every table and view; 'push' may also write the
-- tables with row-level security (the policies hold it to its machines),
-- lock calls_lock, use the sequences and derive the call flags. Nothing
-- else: no TRUNCATE (which row-level security does not cover), no
-- REFERENCES, no TRIGGER, no write on a view. Run by the owner; again
-- after every migration, so that new tables get their grants.
-- +goose StatementBegin
CREATE FUNCTION pidex_grant() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    r record;
    t record;
    s name := current_schema();
BEGIN
    FOR r IN SELECT role, may FROM team_roles ORDER BY role LOOP
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', s, r.role);
        FOR t IN SELECT c.relname, c.relrowsecurity FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE n.nspname = s AND c.relkind IN ('r', 'v', 'm', 'p') ORDER BY c.relname LOOP
            EXECUTE format('GRANT SELECT ON %I.%I TO %I', s, t.relname, r.role);
            IF r.may = 'push' AND t.relrowsecurity THEN
                EXECUTE format('GRANT INSERT, UPDATE, DELETE ON %I.%I TO %I', s, t.relname, r.role);
            END IF;
        END LOOP;
        IF r.may = 'push' THEN
            EXECUTE format('GRANT UPDATE ON %I.calls_lock TO %I', s, r.role);
            EXECUTE format('GRANT USAGE ON ALL SEQUENCES IN SCHEMA %I TO %I', s, r.role);
            EXECUTE format('GRANT EXECUTE ON FUNCTION %I.pidex_derive_calls(text[]) TO %I', s, r.role);
        END IF;
    END LOOP;
END $$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION pidex_grant() FROM PUBLIC;

-- +goose Down
DROP FUNCTION pidex_grant();
DROP FUNCTION pidex_derive_calls(text[]);
DROP POLICY pidex_own ON machines;
DROP POLICY pidex_read ON machines;
ALTER TABLE machines DISABLE ROW LEVEL SECURITY;
-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['push_state', 'files', 'sessions', 'entries', 'entry_lines', 'entry_text',
        'text_index', 'edges', 'labels', 'usage', 'usage_rollup', 'usage_rollup_hour', 'tool_calls', 'warnings',
        'session_activity', 'activity', 'activity_tools', 'activity_file', 'activity_tools_file', 'activity_events'] LOOP
        EXECUTE format('DROP POLICY pidex_own ON %I', t);
        EXECUTE format('DROP POLICY pidex_read ON %I', t);
        EXECUTE format('ALTER TABLE %I DISABLE ROW LEVEL SECURITY', t);
    END LOOP;
END $$;
-- +goose StatementEnd
DROP TABLE migration_sums;
DROP TABLE calls_lock;
DROP TABLE push_locks;
DROP TABLE team_roles;
DROP TABLE machine_roles;
