package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/pidex-dev/pidex"
)

// A push writes as the role of its URL. Under the roles of docs/team.md
// that role is held by row-level security to the machines machine_roles
// binds to it: registering another machine is refused there, before
// anything is written. Its locks are rows only pushing roles may lock,
// never advisory locks, which any role (a reader) could take and hold.

// register adds the machine (or finds it) with its push state and lock
// rows, and tells whether the role writes under row-level security.
func (p *pusher) register(ctx context.Context) error {
	err := p.pc.QueryRow(ctx, `INSERT INTO machines (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id`,
		p.o.Machine).Scan(&p.machine)
	if isCode(err, insufficientPriv) {
		return p.refused(ctx, err)
	}
	if err != nil {
		return fmt.Errorf("register machine %q: %w", p.o.Machine, err)
	}
	for _, q := range []string{`INSERT INTO push_state (machine_id) VALUES ($1) ON CONFLICT DO NOTHING`,
		`INSERT INTO push_locks (machine_id) VALUES ($1) ON CONFLICT DO NOTHING`} {
		if _, err := p.pc.Exec(ctx, q, p.machine); err != nil {
			if isCode(err, insufficientPriv) {
				return p.refused(ctx, err)
			}
			return fmt.Errorf("start push: %w", err)
		}
	}
	if err := p.pc.QueryRow(ctx, `SELECT row_security_active('files')`).Scan(&p.staged); err != nil {
		return fmt.Errorf("start push: %w", err)
	}
	return nil
}

// refused says that the role may not push the machine.
func (p *pusher) refused(ctx context.Context, err error) error {
	var role string
	if qerr := p.pc.QueryRow(ctx, `SELECT current_user`).Scan(&role); qerr != nil {
		role = "?"
	}
	return fmt.Errorf("push: %w: role %q may not push machine %q to team catalog %s (%v); the catalog's owner binds a machine to a role: pidex team add-machine %s --role %s",
		pidex.ErrPermission, role, p.o.Machine, p.s.url, err, p.o.Machine, role)
}

// lockMachine takes the machine's push lock for the push and returns its
// release: the machine's row of push_locks, locked by a transaction on a
// connection of its own that stays open until the push ends (a push that
// dies releases it with its connection). A row lock needs UPDATE on the
// table, which only pushing roles have, and row-level security lets a
// role lock only its machines' rows: a reader cannot stall a push, and a
// developer cannot stall another's machine.
func (p *pusher) lockMachine(ctx context.Context) (func(), error) {
	conn, err := p.s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to team catalog %s: %w", p.s.url, err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("lock the machine's pushes: %w", err)
	}
	release := func() {
		tx.Rollback()
		conn.Close()
	}
	// The transaction waits for the machine's other push, then sits idle
	// until this push ends: no timeout the server or the role sets may end
	// it (which would let a second push in).
	var id int64
	_, err = tx.ExecContext(ctx, `SET LOCAL idle_in_transaction_session_timeout = 0; SET LOCAL lock_timeout = 0; SET LOCAL statement_timeout = 0`)
	if err == nil {
		err = tx.QueryRowContext(ctx, `SELECT machine_id FROM push_locks WHERE machine_id = $1 FOR UPDATE`, p.machine).Scan(&id)
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		release()
		return nil, fmt.Errorf("push: %w: the team catalog %s hides machine %q's push lock from this role", pidex.ErrPermission, p.s.url, p.o.Machine)
	case isCode(err, insufficientPriv):
		release()
		return nil, p.refused(ctx, err)
	case err != nil:
		release()
		return nil, fmt.Errorf("wait for this machine's other push: %w", err)
	}
	return release, nil
}

// lockServed takes, for a team server's transaction, the machine's push
// lock until the transaction ends, shared: a team server's client pushes
// a request at a time (each its own transaction, several at once), so a
// direct push of the machine, which holds the lock exclusively for the
// push, waits for them, and they for it. (A shared row lock needs UPDATE
// too: a reader cannot take it.)
func (p *pusher) lockServed(ctx context.Context, tx pgx.Tx) error {
	var id int64
	err := tx.QueryRow(ctx, `SELECT machine_id FROM push_locks WHERE machine_id = $1 FOR SHARE`, p.machine).Scan(&id)
	if err == nil {
		_, err = tx.Exec(ctx, `SET LOCAL synchronous_commit = off`) // as a direct push's (directSide.begin)
	}
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("%w: the team catalog hides machine %q's push lock from the team server's role", pidex.ErrPermission, p.o.Machine)
	case isCode(err, insufficientPriv):
		return fmt.Errorf("%w: %v", pidex.ErrPermission, err)
	case err != nil:
		return fmt.Errorf("lock the machine's pushes: %w", err)
	}
	return nil
}
