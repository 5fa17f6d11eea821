package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 here":                                              "key [REDACTED] here",
		"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz1234":                                                   "OPENAI_API_KEY=[REDACTED]",
		"token ghp_0123456789abcdefghijABCDEFGHIJ012345":                                                          "token [REDACTED]",
		"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstu":                                                    "[REDACTED]",
		"glpat-abcdefghij0123456789":                                                                              "[REDACTED]",
		"slack xoxb-1234567890-abcdefghij":                                                                        "slack [REDACTED]",
		"AKIAIOSFODNN7EXAMPLE is the id":                                                                          "[REDACTED] is the id",
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY":                                        "aws_secret_access_key = [REDACTED]",
		"AIzaSyA-0123456789abcdefghijklmnopqrstu":                                                                 "[REDACTED]",
		"stripe sk_live_0123456789abcdefABCD":                                                                     "stripe [REDACTED]",
		"Authorization: Bearer abcdefghijklmnopqrstuvwxyz.0123":                                                   "Authorization: Bearer [REDACTED]",
		"postgres://app:s3cr3t-pw@db.example.com:5432/prod":                                                       "postgres://app:[REDACTED]@db.example.com:5432/prod",
		"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U":        "jwt [REDACTED]",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter": "[REDACTED]\nafter",
		"nothing secret here, see https://example.com/a:b and sk-short":                                           "nothing secret here, see https://example.com/a:b and sk-short",
	} {
		got, n := String(in)
		if got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
		if (n > 0) != (got != in) {
			t.Errorf("String(%q): count %d", in, n)
		}
	}
}

// A JSON line keeps its structure and every byte but its secrets, even a
// private key whose newlines are JSON escapes.
func TestLine(t *testing.T) {
	line := `{"type":"message","id":"a1","message":{"role":"user","content":[{"type":"text","text":"here: -----BEGIN RSA PRIVATE KEY-----\nMIIEow\u002BIBAAK\n-----END RSA PRIVATE KEY----- and \"sk-abcdefghijklmnopqrstuvwxyz\""}]},"note":"café \u00e9"}`
	got, n := Line([]byte(line))
	if n != 2 {
		t.Fatalf("%d secrets, want 2: %s", n, got)
	}
	if !json.Valid(got) {
		t.Fatalf("not JSON: %s", got)
	}
	if !strings.HasSuffix(string(got), `,"note":"café \u00e9"}`) || !strings.HasPrefix(string(got), `{"type":"message","id":"a1",`) {
		t.Errorf("other bytes changed: %s", got)
	}
	var v struct {
		Message struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(got, &v); err != nil || v.Message.Content[0].Text != `here: [REDACTED] and "[REDACTED]"` {
		t.Errorf("text %q (%v)", v.Message.Content[0].Text, err)
	}
	if same, n := Line([]byte(`{"a":"plain"}`)); n != 0 || string(same) != `{"a":"plain"}` {
		t.Errorf("a line without secrets changed: %s", same)
	}
}
