/*
Copyright 2026 The profile-scheduler Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package testenv

import (
	"fmt"
	"net"
	"testing"
)

// A port FreePort gives is below the ephemeral range, so no listener on
// port 0 and no outgoing connection is handed it meanwhile, and a server
// can listen on it.
func TestFreePortIsBelowTheEphemeralRange(t *testing.T) {
	low := ephemeralLow()
	for range 50 {
		port := FreePort(t)
		if port < minDrawnPort || port >= low {
			t.Fatalf("port %d: want one of [%d, %d)", port, minDrawnPort, low)
		}
		l, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
		if err != nil {
			t.Fatalf("listening on the port given: %v", err)
		}
		_ = l.Close()
	}
	// Ports the kernel hands out for port 0 are of the range, never one
	// FreePort draws.
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if p < low {
			t.Fatalf("the kernel handed out %d, below its ephemeral range from %d", p, low)
		}
	}
}
