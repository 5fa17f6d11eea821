package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	crand "crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"encoding/pem"
	"io"
	"math/big"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pidex-dev/pidex/internal/pgtest"
)

// tokenCatalog is a team catalog set up for pushes over HTTP as
// docs/team.md says: its owner made the groups, a token per machine bound
// to the team server's role, which is not the owner and writes under
// row-level security.
type tokenCatalog struct {
	owner, server string // the owner's URL, the team server's role's
	tokens        map[string]string
}

func newTokenCatalog(t *testing.T, machines ...string) *tokenCatalog {
	t.Helper()
	su := pgtest.URL(t)
	pgtest.RequireCreateRole(t, su)
	owner, srv := pgtest.Role(su, "owner"), pgtest.Role(su, "srv")
	db := su[strings.LastIndex(su, "/")+1:]
	if i := strings.IndexByte(db, '?'); i >= 0 {
		db = db[:i]
	}
	sqlExec(t, su, `CREATE ROLE `+owner+` LOGIN CREATEROLE`)
	sqlExec(t, su, `ALTER DATABASE `+db+` OWNER TO `+owner)
	tc := &tokenCatalog{owner: pgtest.AsRole(su, owner, ""), server: pgtest.AsRole(su, srv, ""), tokens: map[string]string{}}
	cli(t, 0, "-q", "team", "init", "--to", tc.owner, "--apply")
	for _, m := range machines {
		tc.tokens[m] = strings.TrimSpace(cli(t, 0, "-q", "team", "add-token", m, "--role", srv, "--label", "test", "--to", tc.owner))
	}
	return tc
}

// pushServer is `pidex push-server` running as a process of its own.
type pushServer struct {
	cmd *exec.Cmd
	url string
}

// startPushServer starts a team server writing into catalog (as the role
// of the URL), on a free loopback port.
func startPushServer(t *testing.T, catalog string, more ...string) *pushServer {
	t.Helper()
	cmd := exec.Command(pidexBin(t), append([]string{"push-server", "--to", catalog, "--addr", "127.0.0.1:0"}, more...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("push-server did not start: %v\n%s", err, errb.String())
	}
	s := &pushServer{cmd: cmd, url: strings.TrimSpace(line)}
	t.Cleanup(s.kill)
	return s
}

func (s *pushServer) kill() {
	if s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		_ = s.cmd.Wait()
	}
}

// httpPush is pidex push of machine m to a team server, as a process with
// the token in its environment (nowhere on its command line).
func (c *pushCorpus) httpPush(t *testing.T, m int, server, token string) *exec.Cmd {
	cmd := exec.Command(pidexBin(t), c.args(m, "--no-refresh", "push", "--to", server)...)
	cmd.Env = append(os.Environ(), "PIDEX_PUSH_TOKEN="+token, "XDG_CONFIG_HOME="+t.TempDir())
	return cmd
}

// Pushes over HTTP with a token per machine (docs/team.md, Pushes over
// HTTP): see the subtests.
func TestPushHTTP(t *testing.T) {
	c := newPushCorpus(t)
	t.Run("refused", func(t *testing.T) { httpRefused(t, c) })
	t.Run("equals a direct push", func(t *testing.T) {
		tc := newTokenCatalog(t, "m0", "m1")
		srv := startPushServer(t, tc.server)
		start := time.Now()
		for m := range c.roots {
			if out, err := c.httpPush(t, m, srv.url, tc.tokens["m"+strconv.Itoa(m)]).CombinedOutput(); err != nil {
				t.Fatalf("push m%d over HTTP: %v\n%s", m, err, out)
			}
		}
		overHTTP, start := time.Since(start), time.Now()
		want := c.fresh(t)
		t.Logf("both machines pushed over HTTP in %v, directly (as the owner) in %v", overHTTP.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
		if got := teamDump(t, tc.owner); got != want {
			t.Fatalf("a push over HTTP differs from a direct push:\n%s", firstDiff(want, got))
		}
		// Again: nothing changed, nothing sent, the same catalog.
		out, err := c.httpPush(t, 0, srv.url, tc.tokens["m0"]).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "new 0, appended 0, rewritten 0, rederived 0, removed 0, unchanged 138") {
			t.Errorf("a second push: %v\n%s", err, out)
		}
	})
	t.Run("over TLS", func(t *testing.T) { httpsPush(t, c) })
	t.Run("client killed", func(t *testing.T) { httpKills(t, c, false) })
	t.Run("server killed", func(t *testing.T) { httpKills(t, c, true) })
}

// A wrong token, a revoked one and another machine's are refused, and
// the team catalog is unchanged.
func httpRefused(t *testing.T, c *pushCorpus) {
	tc := newTokenCatalog(t, "m0", "m1")
	srv := startPushServer(t, tc.server)
	if out, err := c.httpPush(t, 1, srv.url, tc.tokens["m1"]).CombinedOutput(); err != nil {
		t.Fatalf("push m1: %v\n%s", err, out)
	}
	revoked := strings.TrimSpace(cli(t, 0, "-q", "team", "add-token", "m0", "--to", tc.owner))
	list := cli(t, 0, "--json", "team", "tokens", "--to", tc.owner)
	id := strings.Count(list, `"id"`) // the third token made
	cli(t, 0, "-q", "team", "revoke-token", strconv.Itoa(id), "--to", tc.owner, "--apply")
	if !strings.Contains(cli(t, 0, "team", "tokens", "--to", tc.owner), "\trevoked 2") {
		t.Errorf("the revoked token is not listed as revoked:\n%s", cli(t, 0, "team", "tokens", "--to", tc.owner))
	}
	// The team server's role sees no token's hash, and adds no token.
	db, err := sql.Open("pgx", tc.server)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var seen int
	if err := db.QueryRow(`SELECT count(*) FROM push_tokens`).Scan(&seen); err != nil || seen != 0 {
		t.Errorf("the server's role sees %d tokens (%v)", seen, err)
	}
	if _, err := db.Exec(`INSERT INTO push_tokens (hash, machines, created_ms) VALUES (sha256('x'), '{m1}', 0)`); err == nil {
		t.Errorf("the server's role added a token")
	}
	before := machineDump(t, tc.owner, "m1") + teamDump(t, tc.owner)
	for _, tt := range []struct {
		name, token, want string
		m                 int
	}{
		{"wrong", "pidex_push_" + strings.Repeat("A", 43), "refused the token", 0},
		{"revoked", revoked, "refused the token", 0},
		{"another machine's", tc.tokens["m0"], "refused machine \"m1\"", 1},
		{"another machine's, to remove it", tc.tokens["m0"], "refused machine \"m1\"", 1},
	} {
		cmd := c.httpPush(t, tt.m, srv.url, tt.token)
		if strings.Contains(tt.name, "remove") { // an empty root: every file of m1 would go
			dir := t.TempDir()
			cmd.Args = []string{cmd.Args[0], "--db", dir + "/empty.sqlite", "--sessions", dir, "--machine", "m1", "-q", "push", "--to", srv.url}
		}
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tt.want) || !strings.Contains(string(out), "permission denied") {
			t.Errorf("%s token: %v\n%s", tt.name, err, out)
		}
		if strings.Contains(string(out), tt.token) {
			t.Errorf("%s token: the token was printed", tt.name)
		}
		if after := machineDump(t, tc.owner, "m1") + teamDump(t, tc.owner); after != before {
			t.Errorf("%s token: the team catalog changed:\n%s", tt.name, firstDiff(before, after))
		}
	}
	// A client of another push protocol (a search row's tsvector as a
	// literal, protocol 1) is refused before it writes, and told why.
	req, err := http.NewRequest("POST", srv.url+"/push/v1/begin?machine=m1",
		strings.NewReader(`{"protocol":1,"push":2,"catalog":"x","format":"x","derivation":1,"version":"pidex old"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tc.tokens["m1"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "pushes with protocol 1") || !strings.Contains(string(body), "use a pidex of the server's version") {
		t.Errorf("a client of protocol 1: %d %s", resp.StatusCode, body)
	}
	if after := machineDump(t, tc.owner, "m1") + teamDump(t, tc.owner); after != before {
		t.Errorf("a client of protocol 1: the team catalog changed:\n%s", firstDiff(before, after))
	}
	// The server's role may write only the machines bound to it: a token
	// for a machine it is not bound to is refused by PostgreSQL too.
	before = teamDump(t, tc.owner)
	other := strings.TrimSpace(cli(t, 0, "-q", "team", "add-token", "m9", "--to", tc.owner))
	cmd := exec.Command(pidexBin(t), "--db", c.dbs[0], "--sessions", c.roots[0], "--machine", "m9", "-q", "--no-refresh", "push", "--to", srv.url)
	cmd.Env = append(os.Environ(), "PIDEX_PUSH_TOKEN="+other)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "permission denied") {
		t.Errorf("a machine not bound to the server's role: %v\n%s", err, out)
	}
	if after := teamDump(t, tc.owner); after != before {
		t.Errorf("a machine not bound to the server's role: the team catalog changed:\n%s", firstDiff(before, after))
	}
}

// Pushes over HTTP whose client (or server) is killed with SIGKILL at
// random moments, again and again, then one push of each machine that
// completes, leave the team catalog equal to a clean push. Each push
// leaves out another project (so each has files to add and to remove);
// every other one is killed only once a group of it committed. 10 kills
// here; PIDEX_HTTP_KILLS=N for N.
func httpKills(t *testing.T, c *pushCorpus, server bool) {
	kills := 10
	if s := os.Getenv("PIDEX_HTTP_KILLS"); s != "" {
		var err error
		if kills, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	tc := newTokenCatalog(t, "m0", "m1")
	seed := uint64(1)
	if server {
		seed = 2
	}
	r := rand.New(rand.NewPCG(9, seed))
	srv := startPushServer(t, tc.server)
	mid := 0 // kills between a push's begin and its finish
	for i := range kills {
		m := i % 2
		machine := "m" + strconv.Itoa(m)
		cmd := c.httpPush(t, m, srv.url, tc.tokens[machine])
		leaveOut := []string{"/w/b", "/w/p"}[r.IntN(2)]
		if m == 0 {
			leaveOut = "/w/p" + strconv.Itoa(r.IntN(5))
		}
		cmd.Args = append(cmd.Args, "--exclude-project", leaveOut)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		before := pushState(t, tc.owner, machine)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if i%4 < 2 {
			time.Sleep(time.Duration(20+r.IntN(600)) * time.Millisecond)
		} else { // once a group committed (or the push ended)
			for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline) && len(exited) == 0; time.Sleep(5 * time.Millisecond) {
				if pushState(t, tc.owner, machine).changes > before.changes {
					break
				}
			}
			time.Sleep(time.Duration(r.IntN(100)) * time.Millisecond)
		}
		victim := cmd.Process
		if server {
			victim = srv.cmd.Process
		}
		_ = victim.Signal(syscall.SIGKILL)
		<-exited
		if server {
			_ = srv.cmd.Wait()
			srv = startPushServer(t, tc.server)
		}
		if after := pushState(t, tc.owner, machine); after.started > before.started && !after.finished {
			mid++
		}
	}
	for m := range c.roots {
		if out, err := c.httpPush(t, m, srv.url, tc.tokens["m"+strconv.Itoa(m)]).CombinedOutput(); err != nil {
			t.Fatalf("the last push of m%d: %v\n%s", m, err, out)
		}
	}
	if got, want := teamDump(t, tc.owner), c.fresh(t); got != want {
		t.Fatalf("after %d kills (%d mid-push), the team catalog differs from a clean push:\n%s", kills, mid, firstDiff(want, got))
	}
	if mid < kills/2 {
		t.Fatalf("only %d of %d kills came mid-push", mid, kills)
	}
	t.Logf("%d of %d kills came mid-push", mid, kills)
}

// machinePush is a machine's push_state: when its last push started,
// whether it finished, and its count of committed changes.
type machinePush struct {
	started  int64
	finished bool
	changes  int64
}

func pushState(t *testing.T, url, machine string) machinePush {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var p machinePush
	err = db.QueryRow(`SELECT COALESCE(started_ms, 0), finished_ms IS NOT NULL, changes FROM push_state p JOIN machines m ON m.id = p.machine_id
		WHERE m.name = $1`, machine).Scan(&p.started, &p.finished, &p.changes)
	if err != nil && err != sql.ErrNoRows {
		t.Fatal(err)
	}
	return p
}

// The rules of a push over HTTP that need no server: TLS beyond loopback
// (the client's and the server's), the token never needed on a command
// line (one in the URL is warned of and never printed; a token file
// others may read is warned of).
func TestPushHTTPRules(t *testing.T) {
	dir := t.TempDir()
	args := func(more ...string) []string {
		return append([]string{"--db", dir + "/c.sqlite", "--sessions", dir, "--machine", "m0"}, more...)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("PIDEX_PUSH_TOKEN", "")
	t.Setenv("PIDEX_PUSH_TOKEN_FILE", "")
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"http beyond loopback", args("push", "--to", "http://pidex.example.com:7374/"), 2, "http:// only to this machine"},
		{"no token", args("push", "--to", "https://127.0.0.1:1/"), 2, "no token (PIDEX_PUSH_TOKEN"},
		{"a server beyond loopback without TLS", []string{"push-server", "--to", "postgres://x@127.0.0.1/db", "--addr", "0.0.0.0:0"}, 2, "--tls-cert and --tls-key"},
		{"half of TLS", []string{"push-server", "--to", "postgres://x@127.0.0.1/db", "--tls-cert", "c.pem"}, 2, "go together"},
		{"a server with no catalog", []string{"push-server", "--to", "https://x/"}, 2, "postgres://"},
	} {
		code, _, errOut := pidexRun(t.Context(), "", tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, want %d saying %q:\n%s", tt.name, code, tt.code, tt.want, errOut)
		}
	}
	// A token in the URL: used, warned of, never printed (here the server
	// is not there: the push fails after the warning).
	code, out, errOut := pidexRun(t.Context(), "", args("push", "--to", "http://pidex_push_secret123@127.0.0.1:1/")...)
	if code != 1 || !strings.Contains(errOut, "holds a token, which anyone on this machine can read") || strings.Contains(out+errOut, "secret123") {
		t.Errorf("a token in the URL: exit %d\n%s%s", code, out, errOut)
	}
	// A token file others may read.
	file := dir + "/token"
	if err := os.WriteFile(file, []byte("pidex_push_secret456\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PIDEX_PUSH_TOKEN_FILE", file)
	code, out, errOut = pidexRun(t.Context(), "", args("push", "--to", "http://127.0.0.1:1/")...)
	if code != 1 || !strings.Contains(errOut, "others may read it") || strings.Contains(out+errOut, "secret456") {
		t.Errorf("a token file of mode 644: exit %d\n%s%s", code, out, errOut)
	}
}

// A team server with a certificate (--tls-cert, --tls-key) and a client
// that trusts it (SSL_CERT_FILE) push over HTTPS, equal to a direct push;
// a client that does not trust it is refused by TLS, and writes nothing.
func httpsPush(t *testing.T, c *pushCorpus) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	tc := newTokenCatalog(t, "m0", "m1")
	srv := startPushServer(t, tc.server, "--tls-cert", cert, "--tls-key", key)
	if !strings.HasPrefix(srv.url, "https://") {
		t.Fatalf("push-server with a certificate serves %s, want https://", srv.url)
	}
	untrusted := c.httpPush(t, 0, srv.url, tc.tokens["m0"])
	empty := t.TempDir()
	untrusted.Env = append(untrusted.Env, "SSL_CERT_FILE="+filepath.Join(empty, "none.pem"), "SSL_CERT_DIR="+empty)
	if out, err := untrusted.CombinedOutput(); err == nil || !strings.Contains(string(out), "certificate") {
		t.Errorf("a client that does not trust the server's certificate: %v\n%s", err, out)
	}
	for m := range c.roots {
		cmd := c.httpPush(t, m, srv.url, tc.tokens["m"+strconv.Itoa(m)])
		cmd.Env = append(cmd.Env, "SSL_CERT_FILE="+cert)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("push m%d over HTTPS: %v\n%s", m, err, out)
		}
	}
	if got, want := teamDump(t, tc.owner), c.fresh(t); got != want {
		t.Fatalf("a push over HTTPS differs from a direct push:\n%s", firstDiff(want, got))
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key as PEM files.
func selfSigned(t *testing.T, dir string) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), crand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "pidex test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(crand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}
