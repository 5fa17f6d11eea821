-- +goose Up
-- Pushes over HTTP (issue 37, docs/team.md "Pushes over HTTP"): a team
-- server (pidex push-server) writes the team catalog, with a role of its
-- own, for machines that hold no database credentials. Each request of a
-- machine's pidex push carries a token bound to the machine names it may
-- push. Only the token's SHA-256 is stored: the token is shown once, when
-- pidex team add-token makes it; revoking it sets revoked_ms.
CREATE TABLE push_tokens (
    id         bigserial PRIMARY KEY,
    hash       bytea NOT NULL UNIQUE CHECK (length(hash) = 32),
    machines   text[] COLLATE "C" NOT NULL CHECK (cardinality(machines) > 0),
    label      text COLLATE "C" NOT NULL DEFAULT '',
    created_ms bigint NOT NULL,
    used_ms    bigint,
    revoked_ms bigint
);

-- Row-level security and no policy: no role but the owner sees or writes a
-- row (pidex_grant gives the groups SELECT on every table, and the pushing
-- group INSERT, UPDATE and DELETE on those under row-level security: here
-- they find nothing and may add nothing).
ALTER TABLE push_tokens ENABLE ROW LEVEL SECURITY;

-- What a team server asks of a token, by its hash: the machines it may
-- push, or NULL when no token that is not revoked has that hash; its use
-- is recorded (once a minute at most). It runs as the owner, so that the
-- server's role needs no right on push_tokens; asking needs the token
-- itself (its hash is the question), so anyone may.
-- +goose StatementBegin
CREATE FUNCTION pidex_token_machines(token_hash bytea) RETURNS text[]
LANGUAGE sql SECURITY DEFINER
BEGIN ATOMIC
    UPDATE push_tokens SET used_ms = (extract(epoch FROM clock_timestamp()) * 1000)::bigint
     WHERE hash = token_hash AND revoked_ms IS NULL
       AND (used_ms IS NULL OR used_ms < (extract(epoch FROM clock_timestamp()) * 1000)::bigint - 60000);
    SELECT machines FROM push_tokens WHERE hash = token_hash AND revoked_ms IS NULL;
END;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION pidex_token_machines(bytea);
DROP TABLE push_tokens;
