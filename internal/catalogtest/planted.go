package catalogtest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Plant is a secret of one kind, and a text it appears in as it would in
// a session (an assignment, a command, a sentence).
type Plant struct {
	Kind, Secret, Text string
}

// Planted are secrets of the kinds gitleaks' rule families cover (cloud
// keys, VCS tokens, model providers' API keys, Slack, Stripe, JWTs,
// private keys, passwords in URLs, .env and JSON assignments), with
// random values of the real shapes, for the redaction tests: none may
// leave a machine, or be shown, where redaction was asked for.
var Planted = []Plant{
	{"aws-access-key-id", "AKIAFCX4G5SY34JDF2ES", "aws configure set aws_access_key_id AKIAFCX4G5SY34JDF2ES"},
	{"aws-secret-access-key", "U3UeB1ibaUiCdPTucbBNDMfKIA9sBIg45naIEl4q", "aws_secret_access_key = U3UeB1ibaUiCdPTucbBNDMfKIA9sBIg45naIEl4q"},
	{"gcp-api-key", "AIzaRSdmtiuFK8dxLrBov2bTJigCvZ5OiylNfBE", "the Maps key is AIzaRSdmtiuFK8dxLrBov2bTJigCvZ5OiylNfBE."},
	{"azure-ad-client-secret", "TC59Q~~SJfzMaI-dH4CQTAUoV_i5vlKOe_sfO6", "AZURE_CLIENT_SECRET value: 'TC59Q~~SJfzMaI-dH4CQTAUoV_i5vlKOe_sfO6'"},
	{"azure-storage-account-key", "LPpZSr1lVFF3oydWNoz0cDIJObgBUKn0JiOXdMl/HdX+iVQP62ggTn/96Oa9fVM5TwSD9atRTUXxEygORxd/gQ==", "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=LPpZSr1lVFF3oydWNoz0cDIJObgBUKn0JiOXdMl/HdX+iVQP62ggTn/96Oa9fVM5TwSD9atRTUXxEygORxd/gQ==;EndpointSuffix=core.windows.net"},
	{"github-pat", "ghp_U6qJZpoFZswYVzF15MFPzMGLGeKYTNGouF38", "git remote set-url origin https://ghp_U6qJZpoFZswYVzF15MFPzMGLGeKYTNGouF38@github.com/acme/api.git"},
	{"github-fine-grained-pat", "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", "GH_TOKEN=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"},
	{"gitlab-pat", "glpat-6TGz91TTisY-ovawwbDA", "curl --header \"PRIVATE-TOKEN: glpat-6TGz91TTisY-ovawwbDA\" https://gitlab.example.com/api/v4/projects"},
	{"openai-api-key", "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", "OpenAI key 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, rotate it"},
	{"anthropic-api-key", "sk-ant-api03-BLkKsVgm_zPwXzjoJVG_raaQ-lXXTHLkVfTfzWOq88WZ1Q2RW3UncTRSjenCSN5hkFiBpT0ov328zSJI1m4vJpMC5tFmaAA", "ANTHROPIC_API_KEY=sk-ant-api03-BLkKsVgm_zPwXzjoJVG_raaQ-lXXTHLkVfTfzWOq88WZ1Q2RW3UncTRSjenCSN5hkFiBpT0ov328zSJI1m4vJpMC5tFmaAA"},
	{"openrouter-api-key", "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", "openrouter: 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"},
	{"deepseek-api-key", "sk-23e68ef8d1aac36c5dd98f9909adaf59", "DeepSeek uses sk-23e68ef8d1aac36c5dd98f9909adaf59 (from the console)"},
	{"groq-api-key", "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", "Groq key: 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"},
	{"huggingface-token", "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", "huggingface-cli login --token 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"},
	{"slack-bot-token", "xoxb-544548771231-1252491999455-7rqT0IWDBfD0EQ0ss2quRnsX", "SLACK_BOT_TOKEN is xoxb-544548771231-1252491999455-7rqT0IWDBfD0EQ0ss2quRnsX"},
	{"slack-webhook-url", "https://hooks.slack.com/services/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", "post to https://hooks.slack.com/services/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"},
	{"stripe-secret-key", "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", "stripe.api_key = \"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\""},
	{"jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4R25WWnpGdWcwVmQiLCJuYW1lIjoiQW5uIiwiaWF0IjoxNzE2MjM5MDIyfQ.a7HUijGEmWRtG1WsliVSyfFRv20h87urhVNAi2hsmPY", "Authorization token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ4R25WWnpGdWcwVmQiLCJuYW1lIjoiQW5uIiwiaWF0IjoxNzE2MjM5MDIyfQ.a7HUijGEmWRtG1WsliVSyfFRv20h87urhVNAi2hsmPY"},
	{"private-key", "-----BEGIN RSA PRIVATE KEY-----\nUzxtz0ekDzSk4CNv815OfHfgDvqpbLpf3xdd7M/AxoCYr4+TMf+NQ3QHlpZUOXIM\nA4p7xjsAgu+1hZsl3ULZwK7S6weO2uSN55aZsPMZn2pFiFyRT3oN2Qgcb1s0jEAw\naofALU9cwdQwL/o6My801aNepbkhMQTSe+1+aLQBJNJnrIXtyx6x1gqBTaGE15FP\nUdf3ItpAUObtUQLfhiADE7RIUSYgK77PyzwVlQ+nzAmMJkLpc3VOAyu22EWMraB0\n6UpW5djaR9Z5gOqJzgw+Fpm4XFb8Mnepby7JmbKSQcd9wV/9i2YD6bqeXZ91EOW7\n4RiISmSR07bAkMKn1JoSsqBDZxDRVyb6llAabGI7gUO4ZpwNu2eOzN6L/6JkxVKL\n-----END RSA PRIVATE KEY-----", "key file:\n-----BEGIN RSA PRIVATE KEY-----\nUzxtz0ekDzSk4CNv815OfHfgDvqpbLpf3xdd7M/AxoCYr4+TMf+NQ3QHlpZUOXIM\nA4p7xjsAgu+1hZsl3ULZwK7S6weO2uSN55aZsPMZn2pFiFyRT3oN2Qgcb1s0jEAw\naofALU9cwdQwL/o6My801aNepbkhMQTSe+1+aLQBJNJnrIXtyx6x1gqBTaGE15FP\nUdf3ItpAUObtUQLfhiADE7RIUSYgK77PyzwVlQ+nzAmMJkLpc3VOAyu22EWMraB0\n6UpW5djaR9Z5gOqJzgw+Fpm4XFb8Mnepby7JmbKSQcd9wV/9i2YD6bqeXZ91EOW7\n4RiISmSR07bAkMKn1JoSsqBDZxDRVyb6llAabGI7gUO4ZpwNu2eOzN6L/6JkxVKL\n-----END RSA PRIVATE KEY-----\n"},
	{"postgres-url-password", "beY2difPkmesWn", "DATABASE_URL=postgres://app:beY2difPkmesWn@db.internal:5432/prod"},
	{"dotenv-password", "QrpLicnbSsUA!y7c", "DATABASE_PASSWORD=QrpLicnbSsUA!y7c"},
	{"export-api-key", "BeRIMMeBLYfQMZu8Olh8UTnQaPXi", "export STRIPE_API_KEY=BeRIMMeBLYfQMZu8Olh8UTnQaPXi"},
	{"json-password", "innmYaAIdf1gqS70", "{\"user\": \"deploy\", \"password\": \"innmYaAIdf1gqS70\"}"},
	{"npm-token", "npm_l3ux0j3UIfyqtPhc6b8ajn9bEswuxtq89mEj", "//registry.npmjs.org/:_authToken=npm_l3ux0j3UIfyqtPhc6b8ajn9bEswuxtq89mEj"},
	{"sendgrid-api-key", "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", "sendgrid 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"},
	{"bearer-token", "Sv24eYJYrBKjwQokyahfYUrGkskaoddLhOeug1Zy", "Authorization: Bearer Sv24eYJYrBKjwQokyahfYUrGkskaoddLhOeug1Zy"},
}

// Probes are what a test looks for of a secret, in lower case: the
// secret, and pieces of it a search index may hold (its longest runs of
// letters and digits), so that a secret cut or tokenized is found too.
func (p Plant) Probes() []string {
	out := []string{strings.ToLower(p.Secret)}
	for _, run := range strings.FieldsFunc(p.Secret, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if len(run) >= 12 {
			out = append(out, strings.ToLower(run[len(run)/2-6:len(run)/2+6]))
		}
	}
	return out
}

// Shapeless reports whether p's secret, alone, says nothing of what it
// is (a password, a base64 key): only its text's context (a name, a URL,
// a header) tells it is one.
func (p Plant) Shapeless() bool {
	switch p.Kind {
	case "aws-secret-access-key", "azure-storage-account-key", "postgres-url-password", "dotenv-password", "export-api-key",
		"json-password", "bearer-token":
		return true
	}
	return false
}

// OneLine is p's text on one line (a private key's: a secret of another
// kind), for the fields that hold a name, not a text: a working
// directory, a model id, a label, a session's name, a tool's name.
func (p Plant) OneLine() Plant {
	if !strings.Contains(p.Text, "\n") {
		return p
	}
	return Planted[0]
}

// errorPad puts p's secret across the 200th character of an error.
func errorPad(p Plant) string {
	at := strings.Index(p.Text, p.Secret) + len(p.Secret)/2
	return strings.Repeat("x", max(0, 198-at)) + " "
}

// PiDir is the folder pi keeps a working directory's sessions in.
func PiDir(cwd string) string {
	cwd = strings.TrimLeft(cwd, `/\`)
	return "--" + strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(cwd) + "--"
}

// PlantedSession is a session file (its folder and name as pi names them
// under a sessions root, and its lines) with p in every field of every
// kind of entry pidex reads: the working directory and the parent
// session's path in the header, a model change's and an assistant's
// model and provider, user and assistant text, thinking, a tool call's
// arguments and name, a tool result, a cut error message, a user's shell
// command and its output, a session name, a label, a custom entry's data,
// a custom message, a compaction and a branch summary.
func PlantedSession(i int, p Plant) (rel string, lines []string) {
	one := p.OneLine()
	cwd := "/home/dev/" + one.Text
	// A user's command that starts with the secret (its first word is
	// kept, cut to 40 characters), where the secret alone has a shape (and
	// is not a URL, whose last segment the first word would be).
	command := one.Secret + " " + one.Text
	if one.Shapeless() || strings.Contains(one.Secret, "/") {
		command = one.Text
	}
	id := fmt.Sprintf("0199c0de-0000-7000-8000-%012d", i)
	rel = PiDir(cwd) + "/2026-05-01T10-00-00-000Z_" + id + ".jsonl"
	ts := func(k int) string { return fmt.Sprintf("2026-05-01T10:%02d:00.000Z", k) }
	ms := func(k int) int64 { return 1777629600000 + int64(k)*60000 }
	j := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	usage := map[string]any{"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120,
		"cost": map[string]any{"input": 0.001, "output": 0.002, "cacheRead": 0, "cacheWrite": 0, "total": 0.003}}
	entry := func(k int, id, parent, typ string, fields map[string]any) string {
		m := map[string]any{"type": typ, "id": id, "timestamp": ts(k)}
		if parent == "" {
			m["parentId"] = nil
		} else {
			m["parentId"] = parent
		}
		for k, v := range fields {
			m[k] = v
		}
		return j(m)
	}
	model := "ft-" + one.Text
	assistant := func(content []any, stop string, extra map[string]any, k int) map[string]any {
		m := map[string]any{"role": "assistant", "content": content, "api": "openai-responses", "provider": "acme " + one.Text,
			"model": model, "usage": usage, "stopReason": stop, "timestamp": ms(k)}
		for k, v := range extra {
			m[k] = v
		}
		return map[string]any{"message": m}
	}
	lines = []string{
		j(map[string]any{"type": "session", "version": 3, "id": id, "timestamp": ts(0), "cwd": cwd,
			"parentSession": "/home/dev/.pi/agent/sessions/" + PiDir(cwd) + "/parent.jsonl"}),
		entry(1, "e01", "", "model_change", map[string]any{"provider": "acme " + one.Text, "modelId": model}),
		entry(2, "e02", "e01", "message", map[string]any{"message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "text", "text": "please use this: " + p.Text}}, "timestamp": ms(2)}}),
		entry(3, "e03", "e02", "message", assistant([]any{
			map[string]any{"type": "thinking", "thinking": "the user gave " + p.Text},
			map[string]any{"type": "text", "text": "I will run it with " + p.Text},
			map[string]any{"type": "toolCall", "id": "call1", "name": "bash", "arguments": map[string]any{"command": command + "\n" + p.Text, "env": map[string]any{"password": p.Secret}}},
			map[string]any{"type": "toolCall", "id": "call2", "name": "mcp " + one.Text, "arguments": map[string]any{"q": "x"}},
		}, "toolUse", nil, 3)),
		entry(4, "e04", "e03", "message", map[string]any{"message": map[string]any{"role": "toolResult", "toolCallId": "call1", "toolName": "bash",
			"content": []any{map[string]any{"type": "text", "text": "output:\n" + p.Text}}, "details": map[string]any{"note": p.Text}, "isError": false, "timestamp": ms(4)}}),
		entry(5, "e05", "e04", "message", map[string]any{"message": map[string]any{"role": "toolResult", "toolCallId": "call2", "toolName": "mcp " + one.Text,
			"content": []any{map[string]any{"type": "text", "text": "ok"}}, "isError": true, "timestamp": ms(5)}}),
		// An error whose first line the catalog cuts (at 200 characters) in
		// the middle of the secret.
		entry(6, "e06", "e05", "message", assistant([]any{}, "error", map[string]any{"errorMessage": errorPad(one) + one.Text + "\nmore"}, 6)),
		entry(7, "e07", "e06", "message", map[string]any{"message": map[string]any{"role": "bashExecution", "command": command,
			"output": p.Text, "exitCode": 0, "cancelled": false, "truncated": false, "timestamp": ms(7)}}),
		entry(8, "e08", "e07", "session_info", map[string]any{"name": "deploy " + one.Text}),
		entry(9, "e09", "e08", "label", map[string]any{"targetId": "e02", "label": one.Text}),
		entry(10, "e10", "e09", "custom", map[string]any{"customType": "notes " + one.Text, "data": map[string]any{"text": p.Text, "token": p.Secret}}),
		entry(11, "e11", "e10", "custom_message", map[string]any{"customType": "ext", "content": p.Text, "display": true}),
		entry(12, "e12", "e11", "compaction", map[string]any{"summary": "so far: " + p.Text, "firstKeptEntryId": "e11", "tokensBefore": 5000,
			"details": map[string]any{"readFiles": []string{"/home/dev/" + one.Text}}}),
		entry(13, "e13", "e02", "branch_summary", map[string]any{"fromId": "e02", "summary": "tried " + p.Text}),
		entry(14, "e14", "e12", "message", map[string]any{"message": map[string]any{"role": "user", "content": "and again " + p.Text, "timestamp": ms(14)}}),
	}
	return rel, lines
}
