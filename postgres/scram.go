package postgres

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"

	"golang.org/x/text/secure/precis"
)

// scramIterations is PostgreSQL's own default (scram_iterations).
const scramIterations = 4096

// scramVerifier is what PostgreSQL stores for a SCRAM-SHA-256 password
// (RFC 5802, 7677): ALTER ROLE … PASSWORD with it sets the password
// without the password ever reaching the server, its logs or a command
// line, as psql's \password does. The password is normalized as pgx
// normalizes it when it logs in (SASLprep's successor, PRECIS
// OpaqueString, kept as it is where that refuses it).
func scramVerifier(password string) (string, error) {
	if norm, err := precis.OpaqueString.String(password); err == nil {
		password = norm
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("make a password verifier: %w", err)
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, scramIterations, sha256.Size)
	if err != nil {
		return "", fmt.Errorf("make a password verifier: %w", err)
	}
	mac := func(key []byte, msg string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac(salted, "Client Key"))
	server := mac(salted, "Server Key")
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", scramIterations, b64(salt), b64(stored[:]), b64(server)), nil
}
