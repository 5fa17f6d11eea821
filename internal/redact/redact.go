// Package redact replaces secrets found in session text with a marker,
// for pidex push --redact: a team server is shared, and session text
// holds what was pasted into it and what tools printed. What it finds:
// API keys and tokens of the common providers (by their documented
// prefixes and shapes), private key blocks, bearer tokens and JSON Web
// Tokens, and the password of a URL (scheme://user:password@host). It is
// a net for the common shapes, not a guarantee: a secret without a
// recognizable shape (a password typed as plain text) stays.
package redact

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Marker replaces each secret.
const Marker = "[REDACTED]"

// patterns are the secrets' shapes. A pattern with a group named secret
// replaces only that group (a URL keeps its user and host). Compiled on
// first use, not at package init: only pidex push --redact needs them,
// and every other command would pay for them at start.
var patterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// Private keys: PEM blocks, whatever the key type.
		regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`),
		// Anthropic (sk-ant-…), OpenAI (sk-…, sk-proj-…), OpenRouter (sk-or-…), DeepSeek and others of the sk- family.
		regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`),
		// GitHub tokens (classic and fine-grained), GitLab, Slack, npm, Hugging Face, PyPI.
		regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}|pypi-[A-Za-z0-9_-]{50,})`),
		// AWS access key ids, and a secret access key next to its name.
		regexp.MustCompile(`\b(AKIA|ASIA)[A-Z0-9]{16}\b`),
		regexp.MustCompile(`(?i)(aws_secret_access_key|secretaccesskey)["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+=]{40})`),
		// Google API keys, Stripe keys, SendGrid, Groq, xAI.
		regexp.MustCompile(`\b(AIza[0-9A-Za-z_-]{35}|(sk|rk|pk)_(live|test)_[0-9A-Za-z]{16,}|SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}|gsk_[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{40,})`),
		// JSON Web Tokens.
		regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
		// Bearer tokens in headers.
		regexp.MustCompile(`(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/-]{20,}=*)`),
		// The password of a URL.
		regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@"'<>]+:(?P<secret>[^/\s@"'<>]+)@`),
	}
})

// triggers are substrings one of which every pattern's match contains,
// in the text or in its JSON form: a line without any is left alone
// without running the patterns.
var triggers = [][]byte{[]byte("PRIVATE KEY"), []byte("sk-"), []byte("ghp_"), []byte("gho_"), []byte("ghu_"), []byte("ghs_"), []byte("ghr_"), []byte("github_pat_"), []byte("glpat-"),
	[]byte("xox"), []byte("npm_"), []byte("hf_"), []byte("pypi-"), []byte("AKIA"), []byte("ASIA"), []byte("ecret"),
	[]byte("ECRET"), []byte("AIza"), []byte("_live_"), []byte("_test_"), []byte("SG."), []byte("gsk_"), []byte("xai-"),
	[]byte("eyJ"), []byte("earer"), []byte("EARER"), []byte("://")}

func triggered(b []byte) bool {
	for _, t := range triggers {
		if bytes.Contains(b, t) {
			return true
		}
	}
	return false
}

// String replaces the secrets of s with Marker and counts them.
func String(s string) (string, int) {
	if !triggered([]byte(s)) {
		return s, 0
	}
	n := 0
	for _, p := range patterns() {
		secret := p.SubexpIndex("secret")
		s = p.ReplaceAllStringFunc(s, func(m string) string {
			n++
			if secret < 0 {
				return Marker
			}
			sub := p.FindStringSubmatchIndex(m)
			return m[:sub[2*secret]] + Marker + m[sub[2*secret+1]:]
		})
	}
	return s, n
}

// Line redacts the string values (and keys) of one JSON line, keeping
// every other byte: each string literal is decoded, redacted, and written
// again only when a secret was in it, so the line stays valid JSON with
// the same structure, and an entry's fields other than its text are as
// they were. A line that is not JSON is redacted as text.
func Line(line []byte) ([]byte, int) {
	if !triggered(line) {
		return line, 0
	}
	var out []byte
	n, last := 0, 0
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(line) {
			break // an unterminated string: not JSON
		}
		lit := line[i : j+1]
		if triggered(lit) {
			var s string
			if err := json.Unmarshal(lit, &s); err == nil {
				if r, k := String(s); k > 0 {
					out = append(out, line[last:i]...)
					out = append(out, encode(r)...)
					last, n = j+1, n+k
				}
			}
		}
		i = j
	}
	if n == 0 {
		if !json.Valid(line) {
			s, k := String(string(line))
			return []byte(s), k
		}
		return line, 0
	}
	return append(out, line[last:]...), n
}

// encode writes a string as JSON does, without HTML escaping (as pi's
// JSON.stringify writes it).
func encode(s string) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(strings.ToValidUTF8(s, string(utf8.RuneError)))
	return bytes.TrimRight(b.Bytes(), "\n")
}
