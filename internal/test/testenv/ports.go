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
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// FreePort is a TCP port that nothing listens on now: for a server a test
// starts (a webhook server), so that tests and a developer's own `make
// run` do not share one. It is drawn below the kernel's ephemeral range
// (net.ipv4.ip_local_port_range): a port the kernel handed out for a
// listener on port 0 (envtest's etcd and kube-apiserver, another test's
// server) or for an outgoing connection is one of that range, so such a
// port can be taken between this call and the server's listen, which a
// port below it cannot, but by another FreePort's draw of the same one
// of thousands.
func FreePort(t Fataler) int {
	t.Helper()
	low := ephemeralLow()
	if low > minDrawnPort+1000 {
		for range 200 {
			if port := minDrawnPort + rand.IntN(low-minDrawnPort); listenable(port) {
				return port
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// Fataler is what FreePort needs of a test: a *testing.T, or Ginkgo's
// GinkgoT().
type Fataler interface {
	Helper()
	Fatal(args ...any)
}

// minDrawnPort is the lowest port FreePort draws: below it are the
// well-known and registered ports of services a machine may run.
const minDrawnPort = 20000

// ephemeralLow is the lowest port of the kernel's ephemeral range
// (32768 when it cannot be read).
func ephemeralLow() int {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return 32768
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil {
		return 32768
	}
	return low
}

// listenable reports whether a server could listen on port, on every
// interface as a webhook server does.
func listenable(port int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}
