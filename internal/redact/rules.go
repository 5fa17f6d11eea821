package redact

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// pidex's own rules, for what gitleaks' rules (written for source code)
// leave in a conversation: a key followed by a full stop or a comma
// (gitleaks' rules want a quote, a space or the end after most keys), a
// URL's password, a bearer token outside a curl command, the providers
// gitleaks has no rule for (DeepSeek, OpenRouter, Groq, xAI), an AWS key
// id that gitleaks' allowlist lets through, a private key shorter than
// its rule wants, and any value assigned to a name that says it is a
// secret (DATABASE_PASSWORD=…, export STRIPE_API_KEY=…, "password": "…"),
// whatever its shape or entropy.

// shape is a secret's shape, and substrings one of which its every match
// holds: a text without any is not searched for it.
type shape struct {
	re       *regexp.Regexp
	triggers []string
	reach    reach
	random   bool // its secret must look random (random)
}

// shapes are the secrets' shapes. A pattern with a group named secret
// replaces only that group (a URL keeps its user and host).
var shapes = sync.OnceValue(func() []shape {
	re := regexp.MustCompile
	sh := func(r *regexp.Regexp, triggers ...string) shape { return shape{r, triggers, reachOf(r), false} }
	rnd := func(r *regexp.Regexp, triggers ...string) shape { return shape{r, triggers, reachOf(r), true} }
	shapes := []shape{
		// Private keys: PEM blocks, whatever the key type and length.
		sh(re(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`), "PRIVATE KEY"),
		// … and its beginning, where a preview or a cut text lost its end.
		sh(re(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[A-Za-z0-9+/=\s]+`), "PRIVATE KEY"),
		// A random-looking token after a word that names a secret, as a
		// tool call's arguments read flattened ("password 3kF9…").
		rnd(re(`(?i)\b(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?)[ \t]{1,4}(?P<secret>[A-Za-z0-9+/=_.~!@#$%^&*-]{12,})`),
			"assword", "ASSWORD", "asswd", "ecret", "ECRET", "oken", "OKEN", "key", "KEY", "Key", "redential", "REDENTIAL", "assphrase"),
		// Anthropic (sk-ant-…), OpenAI (sk-…, sk-proj-…), OpenRouter (sk-or-…), DeepSeek and others of the sk- family.
		sh(re(`\bsk-[A-Za-z0-9_-]{20,}`), "sk-"),
		// GitHub tokens (classic and fine-grained), GitLab, Slack, npm, Hugging Face, PyPI.
		sh(re(`\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}|pypi-[A-Za-z0-9_-]{50,})`),
			"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "npm_", "hf_", "pypi-"),
		// AWS access key ids.
		sh(re(`\b(AKIA|ASIA)[A-Z0-9]{16}\b`), "AKIA", "ASIA"),
		// Google API keys, Stripe keys, SendGrid, Groq, xAI.
		sh(re(`\b(AIza[0-9A-Za-z_-]{35}|(sk|rk|pk)_(live|test)_[0-9A-Za-z]{16,}|SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}|gsk_[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{40,})`),
			"AIza", "_live_", "_test_", "SG.", "gsk_", "xai-"),
		// JSON Web Tokens.
		sh(re(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), "eyJ"),
		// Bearer and basic credentials in headers.
		sh(re(`(?i)\b(?:bearer|basic)[ \t]{1,8}(?P<secret>[A-Za-z0-9._~+/-]{20,}=*)`), "earer", "EARER", "asic", "ASIC"),
		// The password of a URL.
		sh(re(`\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@"'<>]+:(?P<secret>[^/\s@"'<>]+)@`), "://"),
	}
	return shapes
})

// random reports whether a token looks like a key rather than a word:
// letters and digits mixed, and as varied as gitleaks' generic rule wants
// (entropy above 3.5 bits a character).
func random(t string) bool {
	return strings.ContainsAny(t, "0123456789") && strings.IndexFunc(t, unicode.IsLetter) >= 0 && entropy(t) > 3.5
}

func findShapes(s string, out []span) []span {
	for _, p := range shapes() {
		hits := allIndexes(s, p.triggers)
		if len(hits) == 0 {
			continue
		}
		g := p.re.SubexpIndex("secret")
		for _, m := range near(p.re, p.reach, s, hits) {
			if g >= 0 {
				if p.random && !random(s[m[2*g]:m[2*g+1]]) {
					continue
				}
				out = append(out, span{m[2*g], m[2*g+1]})
			} else {
				out = append(out, span{m[0], m[1]})
			}
		}
	}
	return out
}

// allIndexes are where the words are in s, in order.
func allIndexes(s string, words []string) []span {
	var hits []span
	for _, w := range words {
		for i := 0; ; {
			k := strings.Index(s[i:], w)
			if k < 0 {
				break
			}
			hits = append(hits, span{i + k, i + k + len(w)})
			i += k + len(w)
		}
	}
	sort.Slice(hits, func(a, b int) bool { return hits[a].lo < hits[b].lo })
	return hits
}

// findAssignments finds NAME=value, export NAME=value, NAME: value (at
// a line's start, as YAML writes it), "name": "value", name := value and
// name => value where the name says the value is a secret (SecretName):
// the value, quoted or not, is the span. It scans for the separators by
// hand: a regexp anchored nowhere costs a pass over the text per
// position.
func findAssignments(s, lower string, out []span) []span {
	hit := false
	for _, w := range assignWords {
		if strings.Contains(lower, w) {
			hit = true
			break
		}
	}
	if !hit {
		return out
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '=' && c != ':' {
			continue
		}
		sep, after := string(c), i+1
		if c == ':' && after < len(s) && s[after] == '=' {
			sep, after = ":=", after+1
		} else if c == '=' && after < len(s) && s[after] == '>' {
			sep, after = "=>", after+1
		} else if c == '=' && i > 0 && strings.IndexByte("=!<>+-*/%&|^", s[i-1]) >= 0 {
			continue // ==, !=, <=, +=: not an assignment of a value
		}
		// The name, backwards over spaces and a closing quote.
		e := i
		for e > 0 && (s[e-1] == ' ' || s[e-1] == '\t') {
			e--
		}
		if e > 0 && (s[e-1] == '"' || s[e-1] == '\'') {
			e--
			for e > 0 && s[e-1] == '\\' {
				e-- // an escaped quote: JSON inside a JSON string
			}
		}
		b := e
		for b > 0 && b > e-80 && nameByte(s[b-1]) {
			b--
		}
		for b < e && (s[b] == '-' || s[b] == '.') {
			b++ // a name starts with a letter (--dir-NAME=…: pi's folder of a directory)
		}
		if b == e || !(isLetter(s[b]) || s[b] == '_') || (b > 0 && nameByte(s[b-1])) {
			continue
		}
		name := s[b:e]
		if !hasAny(strings.ToLower(name), assignWords) || !SecretName(name) {
			continue
		}
		// The value, after spaces: quoted, or up to a delimiter.
		lo := after
		for lo < len(s) && (s[lo] == ' ' || s[lo] == '\t') {
			lo++
		}
		if lo >= len(s) {
			continue
		}
		var hi int
		if k := escapedQuote(s, lo); k > lo {
			// \"value\": a JSON text quoted inside another.
			end := strings.IndexByte(s[k+1:], s[k])
			if end < 0 {
				continue
			}
			lo, hi = k+1, k+1+end
			for hi > lo && s[hi-1] == '\\' {
				hi--
			}
		} else if q := s[lo]; q == '"' || q == '\'' {
			hi = lo + 1
			for hi < len(s) && s[hi] != q && s[hi] != '\n' {
				if s[hi] == '\\' && q == '"' {
					hi++
				}
				hi++
			}
			if hi >= len(s) || s[hi] != q {
				continue
			}
			lo++
		} else {
			hi = lo
			for hi < len(s) && !valueEnd(s[hi]) {
				hi++
			}
			if hi < len(s) && strings.IndexByte("([{", s[hi]) >= 0 {
				continue // a call or an index: code, not a value
			}
			if sep == ":" {
				// Not "the token: …" in a sentence: a YAML key starts its line.
				ls := strings.LastIndexByte(s[:b], '\n') + 1
				if strings.TrimLeft(s[ls:b], " \t-\"'") != "" {
					continue
				}
			}
		}
		if hi <= len(s) && secretValue(s[lo:hi]) {
			out = append(out, span{lo, hi})
		}
		i = max(i, hi-1)
	}
	return out
}

// escapedQuote is where the quote of \" (or \\\", …) starting at i is,
// or i when there is none.
func escapedQuote(s string, i int) int {
	k := i
	for k < len(s) && s[k] == '\\' {
		k++
	}
	if k > i && k < len(s) && (s[k] == '"' || s[k] == '\'') {
		return k
	}
	return i
}

func nameByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// valueEnd ends an unquoted value.
func valueEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', ',', ';', '&', '|', '<', '>', '(', ')', '{', '}', '[', ']':
		return true
	}
	return false
}

func hasAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// assignWords are what a text must hold (in lower case) for an
// assignment of a secret to be in it.
var assignWords = []string{"pass", "pwd", "secret", "token", "key", "cred", "pat"}

// SecretName reports whether a name (of a variable, a key, a field)
// says that its value is a secret: its last word is password, passwd,
// pwd, pass, passphrase, secret, token, apikey, credential(s), creds or
// pat (PASSWORD, db_pass, clientSecret, GITHUB_TOKEN, GH_PAT), or it is
// key after a word that makes it one (API_KEY, accessKey, AccountKey,
// private_key), or any word but the last is password, secret, token or
// credentials and the last does not name something else (SECRET_KEY_BASE,
// but not TOKEN_URL or password_file).
func SecretName(name string) bool {
	words := splitWords(name)
	n := len(words)
	if n == 0 {
		return false
	}
	last := words[n-1]
	switch last {
	case "password", "passwd", "pass", "passphrase", "secret", "token", "apikey", "credential", "credentials", "creds", "pat":
		return true
	case "pwd":
		return n > 1 // PWD alone is the shell's working directory
	case "key":
		if n == 1 {
			return false
		}
		if keyQualifiers[words[n-2]] {
			return true
		}
		// An environment variable's name: FOO_KEY.
		return strings.ToUpper(name) == name && strings.ContainsAny(name, "_")
	}
	if notSecretLast[last] {
		return false
	}
	for _, w := range words[:n-1] {
		switch w {
		case "password", "passwd", "secret", "token", "credentials", "apikey":
			return true
		}
	}
	return false
}

// keyQualifiers make a name ending in key a secret's.
var keyQualifiers = map[string]bool{"api": true, "access": true, "secret": true, "private": true, "account": true, "master": true,
	"auth": true, "signing": true, "encryption": true, "encrypt": true, "client": true, "app": true, "service": true,
	"license": true, "deploy": true, "ssh": true, "storage": true, "shared": true, "session": true, "subscription": true,
	"consumer": true, "webhook": true, "admin": true, "hmac": true, "jwt": true, "sas": true, "write": true,
	"read": true, "ingest": true, "sdk": true, "server": true, "token": true, "root": true, "user": true}

// notSecretLast are last words that name something about a secret, not
// the secret: where it is, what it is called, how long it lives.
var notSecretLast = map[string]bool{"url": true, "uri": true, "file": true, "path": true, "dir": true, "name": true, "id": true,
	"type": true, "length": true, "len": true, "size": true, "count": true, "min": true, "max": true, "ttl": true, "expiry": true,
	"expires": true, "in": true, "at": true, "header": true, "endpoint": true, "field": true, "label": true, "hint": true,
	"prompt": true, "policy": true, "reset": true, "required": true, "env": true, "var": true, "hash": true, "tokens": true,
	"limit": true, "usage": true, "cost": true}

// splitWords splits a name into its lower-case words at _, -, . and
// case changes (apiKey, APIKey, api_key and API-KEY are api, key).
func splitWords(name string) []string {
	var words []string
	rs := []rune(name)
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, strings.ToLower(string(rs[start:end])))
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.':
			flush(i)
			start = i + 1
		case i > start && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return words
}

// secretValue reports whether a value assigned to a secret's name may be
// the secret: not a reference to one ($VAR, ${VAR}, %VAR%, {{ var }},
// <your-key>, process.env.KEY), not a word that stands for none (null,
// true, ***), not the marker, and at least 4 characters.
func secretValue(v string) bool {
	if len(v) < 4 || strings.Contains(v, Marker) {
		return false
	}
	switch v[0] {
	case '$', '%', '<', '{', '@':
		return false
	}
	if strings.Count(v, v[:1]) == len(v) {
		return false // ****, xxxx
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "none", "nil", "undefined", "empty", "required", "optional", "string", "redacted", "hidden",
		"secret", "password", "token", "changeit":
		return false
	}
	return !dotted().MatchString(v)
}

// dotted is a path of identifiers: process.env.TOKEN, settings.SECRET_KEY.
var dotted = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$`)
})

// cutToken is a long run of token characters against an ellipsis: a
// text the catalog cut (an error's first line, a command's first word, a
// search snippet) may have cut a secret, and what is left of it no
// longer has its rule's shape.
var cutToken = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[A-Za-z0-9_\-+/=.~]{12,}…|…[A-Za-z0-9_\-+/=.~]{12,}`)
})

func findCut(s string, out []span) []span {
	if !strings.Contains(s, "…") {
		return out
	}
	for _, m := range cutToken().FindAllStringIndex(s, -1) {
		lo, hi := m[0], m[1]
		if strings.HasPrefix(s[lo:hi], "…") {
			lo += len("…")
		} else {
			hi -= len("…")
		}
		t := s[lo:hi]
		if strings.ContainsAny(t, "0123456789") && strings.IndexFunc(t, unicode.IsLetter) >= 0 {
			out = append(out, span{lo, hi})
		}
	}
	return out
}

// piDir is a folder pi names after a working directory (--home-u-app--),
// its "/", "\\" and ":" written "-": a URL or a JSON text in the
// directory no longer has the shape its rule knows.
var piDir = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[/\\])--([^/\\\n]+)--(?:[/\\]|$)`)
})

// mangledURL is a URL's password in such a folder: scheme---user-password@.
var mangledURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.]*---[^@/\\]*?-([^@/\\]+)@`)
})

// findPiDirs runs the rules over each such folder's name with its dashes
// read back as "/" and as ":" (byte for byte, so the spans are the
// name's), and finds the passwords of its URLs.
func findPiDirs(s string, out []span) []span {
	if !strings.HasPrefix(s, "--") && !strings.Contains(s, "/--") && !strings.Contains(s, `\--`) {
		return out
	}
	for _, m := range piDir().FindAllStringSubmatchIndex(s, -1) {
		lo, name := m[2], s[m[2]:m[3]]
		for _, dash := range []string{"/", ":"} {
			cand := strings.ReplaceAll(name, "-", dash)
			lower := strings.ToLower(cand)
			var sp []span
			sp = gitleaks().find(cand, lower, sp)
			sp = findShapes(cand, sp)
			sp = findAssignments(cand, lower, sp)
			for _, x := range sp {
				out = append(out, span{lo + x.lo, lo + x.hi})
			}
		}
		for _, u := range mangledURL().FindAllStringSubmatchIndex(name, -1) {
			out = append(out, span{lo + u[2], lo + u[3]})
		}
	}
	return out
}
