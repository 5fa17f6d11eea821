package postgres

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pidex-dev/pidex"
)

// A token lets a machine push to a team server (pidex push-server) with
// no database credentials (docs/team.md, Pushes over HTTP): 32 random
// bytes, bound to the machine names it may push. The team catalog keeps
// its SHA-256 only (push_tokens, migration 00010): the token is shown
// once, when made. A token is random and long, so a fast hash is enough:
// no one can try tokens against a hash.

// tokenPrefix starts every push token, so that a secret scanner (and a
// reader of a file) knows what it is.
const tokenPrefix = "pidex_push_"

// NewToken makes a push token.
func NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make a token: %w", err)
	}
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// tokenHash is what the team catalog keeps of a token.
func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// TeamAddToken records token's hash for machines, with a label to know it
// by. With role, the team server's role (the one in its --to URL), the
// machines are bound to that role too (as add-machine does), so that it
// may write them under row-level security; without, the server writes as
// the catalog's owner, or its role is bound already.
func TeamAddToken(g Groups, machines []string, role, label, token string) (TeamScript, error) {
	if len(machines) == 0 {
		return nil, pidex.Usagef("add-token needs the MACHINE names the token may push")
	}
	if !strings.HasPrefix(token, tokenPrefix) {
		return nil, fmt.Errorf("add-token: not a push token")
	}
	var s TeamScript
	list := make([]string, len(machines))
	for i, m := range machines {
		if err := checkMachine(m); err != nil {
			return nil, err
		}
		list[i] = literal(m)
		if role == "" {
			continue
		}
		add, err := TeamAddMachine(g, m, role, "")
		if err != nil {
			return nil, err
		}
		add[0].Comment = fmt.Sprintf("The team server's role %s writes machine %s.", role, m)
		s = append(s, add[:len(add)-1]...) // not the password's comment: the server's role has its own
	}
	return append(s, TeamStep{
		Comment: "The token's SHA-256 (the token itself is shown once, and stored nowhere).",
		SQL: "INSERT INTO push_tokens (hash, machines, label, created_ms) VALUES (decode(" + literal(hex.EncodeToString(tokenHash(token))) +
			", 'hex'), ARRAY[" + strings.Join(list, ", ") + "]::text[], " + literal(label) + ", (extract(epoch FROM clock_timestamp()) * 1000)::bigint)",
	}), nil
}

// TeamRevokeToken revokes the tokens of the given ids: a team server
// refuses them from the next request on.
func TeamRevokeToken(ids []int64) (TeamScript, error) {
	if len(ids) == 0 {
		return nil, pidex.Usagef("revoke-token needs the ID of a token (pidex team tokens lists them)")
	}
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = strconv.FormatInt(id, 10)
	}
	return TeamScript{{Comment: "These tokens push no more (a team server refuses them from its next request).",
		SQL: "UPDATE push_tokens SET revoked_ms = (extract(epoch FROM clock_timestamp()) * 1000)::bigint WHERE id IN (" +
			strings.Join(list, ", ") + ") AND revoked_ms IS NULL"}}, nil
}

// Token is a push token as the team catalog knows it (never the token).
type Token struct {
	ID        int64    `json:"id"`
	Machines  []string `json:"machines"`
	Label     string   `json:"label"`
	CreatedMs int64    `json:"created_ms"`
	UsedMs    *int64   `json:"used_ms"`
	RevokedMs *int64   `json:"revoked_ms"`
}

// TokenID is the id of the token recorded for token (after TeamAddToken).
func (s *Store) TokenID(ctx context.Context, token string) (int64, error) {
	var id int64
	if err := s.db.QueryRowContext(ctx, `SELECT id FROM push_tokens WHERE hash = $1`, tokenHash(token)).Scan(&id); err != nil {
		return 0, fmt.Errorf("read push token: %w", err)
	}
	return id, nil
}

// Tokens lists the push tokens (as the owner: no other role sees them).
func (s *Store) Tokens(ctx context.Context) ([]Token, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, machines, label, created_ms, used_ms, revoked_ms FROM push_tokens ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list push tokens: %w", err)
	}
	defer rows.Close()
	out := []Token{}
	m := pgtype.NewMap()
	for rows.Next() {
		var t Token
		if err := rows.Scan(&t.ID, m.SQLScanner(&t.Machines), &t.Label, &t.CreatedMs, &t.UsedMs, &t.RevokedMs); err != nil {
			return nil, fmt.Errorf("list push tokens: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// errToken: a token no one made, or revoked.
var errToken = errors.New("unknown or revoked push token")

// tokenMachines are the machines token may push (pidex_token_machines,
// migration 00010), or errToken.
func (s *Store) tokenMachines(ctx context.Context, token string) ([]string, error) {
	var machines []string
	m := pgtype.NewMap()
	err := s.db.QueryRowContext(ctx, `SELECT pidex_token_machines($1)`, tokenHash(token)).Scan(m.SQLScanner(&machines))
	switch {
	case errors.Is(err, sql.ErrNoRows), err == nil && machines == nil:
		return nil, errToken
	case err != nil:
		return nil, fmt.Errorf("check push token: %w", err)
	}
	return machines, nil
}
