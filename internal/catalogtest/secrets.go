package catalogtest

import "fmt"

// SecretKey is the API key SecretSession plants in a user message.
const SecretKey = "sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm"

// Secrets are what SecretSession plants, in the case-insensitive form a
// test looks for (an index may fold case): none may be left where
// redaction was asked for.
var Secrets = []string{SecretKey, "hunter2pass", "b3BlbnNzaC1rZXk", "ghp_0123", "AKIAIOSFODNN7EXAMPLE", "zx9qw8er7ty6"}

// SecretSession is a session file's lines (header first) with secrets
// in every place session text lies: an API key in a user message, a URL
// password and a private key in a tool result, a GitHub token in the
// session's name, an AWS key id in a label (the redaction tests of push
// and export share it).
func SecretSession(id, cwd string) []string {
	return []string{
		fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-05-01T10:00:00.000Z","cwd":%q}`, id, cwd),
		fmt.Sprintf(`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":%q}]}}`, "my key is "+SecretKey+" please keep it"),
		`{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-05-01T10:00:02.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"DATABASE_URL=postgres://app:hunter2pass@db.internal:5432/prod\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----"}],"isError":false}}`,
		`{"type":"session_info","id":"a3","parentId":"a2","timestamp":"2026-05-01T10:00:03.000Z","name":"deploy with ghp_0123456789abcdefghijABCDEFGHIJ012345"}`,
		`{"type":"label","id":"a4","parentId":"a3","timestamp":"2026-05-01T10:00:04.000Z","targetId":"a1","label":"token AKIAIOSFODNN7EXAMPLE"}`,
	}
}
