package web

import (
	"fmt"
	"net/http"
	"time"
)

// keepAlive is how often an idle event stream says it is alive (so
// proxies and browsers keep it open): the only thing the server does
// while nothing changes.
const keepAlive = 30 * time.Second

// events streams server-sent events: "change" whenever a refresh of the
// watcher changed the catalog. Pages reload what they show on it; the
// event carries no data beyond that ("ask again").
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		s.httpError(w, r, fmt.Errorf("event stream: the connection cannot stream"))
		return
	}
	ch, stop := s.cat.Subscribe()
	defer stop()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	fmt.Fprint(w, "retry: 2000\n: connected\n\n")
	fl.Flush()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case ev, ok := <-ch:
			if !ok {
				return
			}
			if !ev.Changed() {
				continue
			}
			st := ev.Stats
			fmt.Fprintf(w, "event: change\ndata: {\"new\":%d,\"appended\":%d,\"rewritten\":%d,\"removed\":%d}\n\n", st.New, st.Appended, st.Rewritten, st.Removed)
			fl.Flush()
		case <-tick.C:
			fmt.Fprint(w, ": alive\n\n")
			fl.Flush()
		}
	}
}
