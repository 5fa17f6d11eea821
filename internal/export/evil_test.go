package export_test

import "strings"

// evilID is a session, written here, whose text tries to break out of
// the page (</script>, markup, event handlers, javascript: and http:
// links, an SVG image, control characters), holds a secret in every
// place text goes, and has two branches: on branch A a compaction
// compacts the entries before it, which branch B keeps in the context.
const evilID = "e0000000-0000-4000-8000-00000000e71c"

// secret has the shape of an Anthropic key (redact finds it).
const secret = "sk-ant-api03-Zq3xYv9WmT4pLr8NcK2bHd6JfA1sEg5uQ0oIxRt7"

// pixel is a 1×1 PNG.
const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="

var evilSession = strings.Join([]string{
	`{"type":"session","version":3,"id":"` + evilID + `","timestamp":"2026-10-01T10:00:00.000Z","cwd":"/home/<img src=x onerror=alert('cwd')>/proj"}`,
	`{"type":"message","id":"m1","parentId":null,"timestamp":"2026-10-01T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"evilword </script><script>alert('user')</script> <img src=x onerror=alert('img')> ![pic](http://example.com/x.png) [site](https://example.com/) key ` + secret + ` ctl \u0000\u001b[31m\u2028 end"},{"type":"image","mimeType":"image/png","data":"` + pixel + `"},{"type":"image","mimeType":"image/svg+xml","data":"PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"}],"timestamp":1790848801000}}`,
	`{"type":"message","id":"a1","parentId":"m1","timestamp":"2026-10-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"</script><script>alert('thinking')</script> ` + secret + `"},{"type":"text","text":"Here:\n` + "```html\\n</code></pre></script><script>alert('fence')</script>\\n```" + `"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"echo '</script><script>alert(\"args\")</script>' ` + secret + `"}}],"provider":"p","model":"m","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"stopReason":"toolUse","timestamp":1790848802000}}`,
	`{"type":"message","id":"t1","parentId":"a1","timestamp":"2026-10-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"</script><script>alert('output')</script> ` + secret + `"}],"isError":false,"timestamp":1790848803000}}`,
	// Branch A: a compaction keeps u2 on.
	`{"type":"message","id":"u2","parentId":"t1","timestamp":"2026-10-01T10:01:00.000Z","message":{"role":"user","content":"branch A question","timestamp":1790848860000}}`,
	`{"type":"compaction","id":"k1","parentId":"u2","timestamp":"2026-10-01T10:01:01.000Z","summary":"Summary of A </script> ` + secret + `","firstKeptEntryId":"u2","tokensBefore":1000}`,
	`{"type":"message","id":"u3","parentId":"k1","timestamp":"2026-10-01T10:01:02.000Z","message":{"role":"user","content":"branch A after the compaction","timestamp":1790848862000}}`,
	// Branch B, the current one.
	`{"type":"message","id":"u4","parentId":"t1","timestamp":"2026-10-01T10:02:00.000Z","message":{"role":"user","content":"branch B question","timestamp":1790848920000}}`,
	`{"type":"message","id":"a4","parentId":"u4","timestamp":"2026-10-01T10:02:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"branch B answer"}],"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.25}},"stopReason":"stop","timestamp":1790848921000}}`,
	`{"type":"label","id":"l1","parentId":"a4","timestamp":"2026-10-01T10:02:02.000Z","targetId":"m1","label":"<img src=x onerror=alert('label')> ` + secret + `"}`,
	`{"type":"session_info","id":"n1","parentId":"l1","timestamp":"2026-10-01T10:02:03.000Z","name":"</script><script>alert('name')</script> ` + secret + `"}`,
}, "\n") + "\n"
