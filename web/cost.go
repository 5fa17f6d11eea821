package web

import (
	"fmt"
	"net/http"

	"github.com/pidex-dev/pidex/schema"
)

// The cost page and /api/cost wait for the cost report (engine.Cost).

func (s *Server) costPage(w http.ResponseWriter, r *http.Request) {
	renderPage(w, r, http.StatusOK, "cost", page{Title: "Cost", Nav: "cost"})
}

func (s *Server) apiCost(w http.ResponseWriter, r *http.Request) {
	httpError(w, r, fmt.Errorf("cost report: not in this build: %w", schema.ErrNotFound))
}
