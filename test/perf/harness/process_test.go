package harness

import (
	"net"
	"os"
	"testing"
	"time"
)

// openSockets counts this process's sockets: one more listener is one
// more; watchSockets reports the peak while it ran.
func TestOpenSockets(t *testing.T) {
	before, err := openSockets(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	stop := watchSockets(os.Getpid(), time.Hour)
	var ls []net.Listener
	for range 3 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	now, err := openSockets(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if now != before+3 {
		t.Errorf("with 3 more listeners, %d sockets, want %d", now, before+3)
	}
	// stop samples once more, with the listeners still open.
	if peak := stop(); peak < before+3 {
		t.Errorf("peak %d sockets, want at least %d", peak, before+3)
	}
	for _, l := range ls {
		l.Close()
	}
}
