package httpguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Serve answers h on ln until ctx ends, then shuts down, giving requests
// in flight two seconds: both servers' lifetime. A slow client cannot
// hold a connection by dribbling its headers (ReadHeaderTimeout), and
// every request's context ends with ctx (event streams close with it).
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shut down server: %w", err)
	}
	return nil
}
