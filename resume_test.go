package pidex

import (
	"errors"
	"strings"
	"testing"
)

func TestNewResume(t *testing.T) {
	leaf := "l9"
	session := func(source, path, cwd string) Session {
		return Session{ID: "s1", Source: source, Path: path, Cwd: cwd, LeafID: &leaf}
	}
	target := &EntryMark{ID: "e3", Kind: "user", Line: 4, Preview: "try again"}
	tests := []struct {
		name    string
		f       ResumeFacts
		o       ResumeOptions
		command string
		notes   []string // substrings, one per note, in order
		err     string
	}{
		{"pi", ResumeFacts{Session: session(SourcePi, "/s/a.jsonl", "/w/app"), Version: 3}, ResumeOptions{},
			"cd /w/app && pi --session /s/a.jsonl", nil, ""},
		{"pi, quoted", ResumeFacts{Session: session(SourcePi, "/s/it's here.jsonl", "/w/my app"), Version: 3}, ResumeOptions{Args: []string{"--model", "a b"}},
			`cd '/w/my app' && pi --session '/s/it'\''s here.jsonl' --model 'a b'`, nil, ""},
		{"pi, fork", ResumeFacts{Session: session(SourcePi, "/s/a.jsonl", "/w/app"), Version: 3}, ResumeOptions{Fork: true},
			"cd /w/app && pi --fork /s/a.jsonl", nil, ""},
		{"pi, another leaf", ResumeFacts{Session: session(SourcePi, "/s/a.jsonl", "/w/app"), Version: 3, Target: target}, ResumeOptions{Leaf: "e3"},
			"cd /w/app && pi --session /s/a.jsonl", []string{"pi opens the session at its latest entry l9: type /tree and choose entry e3 (line 4, user “try again”)"}, ""},
		{"pi, fork at another leaf", ResumeFacts{Session: session(SourcePi, "/s/a.jsonl", "/w/app"), Version: 3, Target: target}, ResumeOptions{Leaf: "e3", Fork: true},
			"cd /w/app && pi --fork /s/a.jsonl", []string{"pi --fork copies the whole session, at its latest entry l9: in the copy, type /tree and choose entry e3"}, ""},
		{"pi, version 1", ResumeFacts{Session: session(SourcePi, "/s/a.jsonl", "/w/app"), Version: 1}, ResumeOptions{},
			"cd /w/app && pi --session /s/a.jsonl", []string{"format version 1: pi rewrites it as version 3"}, ""},
		{"omp", ResumeFacts{Session: session(SourceOmp, "/o/b.jsonl", "/w/app"), Version: 3}, ResumeOptions{},
			"cd /w/app && omp --resume /o/b.jsonl", nil, ""},
		{"omp, no cwd", ResumeFacts{Session: session(SourceOmp, "/o/b.jsonl", ""), Version: 3}, ResumeOptions{Fork: true},
			"omp --fork /o/b.jsonl", nil, ""},
		{"openclaw", ResumeFacts{Session: session(SourceOpenClaw, "/c/b.jsonl", "/w/ws"), Version: 3, Key: "agent:main:main"}, ResumeOptions{},
			"openclaw resume agent:main:main", []string{"Gateway, which must be running"}, ""},
		{"openclaw, not indexed", ResumeFacts{Session: session(SourceOpenClaw, "/c/b.jsonl", "/w/ws"), Version: 3}, ResumeOptions{},
			"openclaw resume", []string{"not in OpenClaw's index", "Gateway"}, ""},
		{"openclaw, checkpoint", ResumeFacts{Session: session(SourceOpenClaw, "/c/b.checkpoint.x.jsonl", "/w/ws"), Version: 3, Key: "agent:main:main", Checkpoint: true}, ResumeOptions{},
			"openclaw resume agent:main:main", []string{"a checkpoint OpenClaw kept before a compaction: openclaw resumes the live session agent:main:main", "Gateway"}, ""},
		{"openclaw, another leaf", ResumeFacts{Session: session(SourceOpenClaw, "/c/b.jsonl", "/w/ws"), Version: 3, Key: "k", Target: target}, ResumeOptions{Leaf: "e3"},
			"openclaw resume k", []string{"openclaw resumes the session at its latest entry and has no way to start from entry e3", "Gateway"}, ""},
		{"openclaw cannot fork", ResumeFacts{Session: session(SourceOpenClaw, "/c/b.jsonl", "/w/ws"), Key: "k"}, ResumeOptions{Fork: true},
			"", nil, "openclaw cannot fork a session from its command line"},
		{"unknown source", ResumeFacts{Session: session("codex", "/x.jsonl", "/w")}, ResumeOptions{},
			"", nil, `no command line for "codex" sessions`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewResume(tc.f, tc.o)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				if tc.o.Fork && !errors.Is(err, ErrUsage) {
					t.Errorf("a fork the agent cannot do is a usage error: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Command != tc.command {
				t.Errorf("command %s, want %s", r.Command, tc.command)
			}
			if len(r.Notes) != len(tc.notes) {
				t.Fatalf("notes %q, want %d", r.Notes, len(tc.notes))
			}
			for i, n := range tc.notes {
				if !strings.Contains(r.Notes[i], n) {
					t.Errorf("note %q lacks %q", r.Notes[i], n)
				}
			}
			if tc.f.Target != nil && r.Target != "e3" || r.Leaf != "l9" {
				t.Errorf("leaf %q target %q", r.Leaf, r.Target)
			}
		})
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b-c_d.e@f:g,h+i=j%k": "/a/b-c_d.e@f:g,h+i=j%k",
		"":                       "''",
		"a b":                    "'a b'",
		"it's":                   `'it'\''s'`,
		"$HOME":                  "'$HOME'",
		"~/x":                    "'~/x'",
		"a;rm -rf /":             "'a;rm -rf /'",
		"x\ny":                   "'x\ny'",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := ShellCommand("/w/a b", "pi", "--session", "x y"); got != "cd '/w/a b' && pi --session 'x y'" {
		t.Errorf("ShellCommand: %s", got)
	}
}
