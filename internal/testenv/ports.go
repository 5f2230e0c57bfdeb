package testenv

import (
	"net"
	"testing"
)

// FreePort is a TCP port of 127.0.0.1 that nothing listens on now: for a
// server a test starts (a webhook server), so that tests and a developer's
// own `make run` do not share one.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}
