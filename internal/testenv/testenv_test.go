package testenv

import (
	"bytes"
	"regexp"
	"sync"
	"testing"
)

// lockedBuffer is written by the copiers of two processes at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestWithOutputKeepsKubeAPIServerAndEtcdOutput(t *testing.T) {
	var out lockedBuffer
	env, _, err := Start(WithOutput(&out))
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Stop(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	// kube-apiserver logs with klog's header, etcd in JSON.
	if !regexp.MustCompile(`(?m)^[IWE]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+\.go:\d+\]`).MatchString(got) {
		t.Errorf("no kube-apiserver log line in the output:\n%.2000s", got)
	}
	if !regexp.MustCompile(`(?m)^\{"level":"\w+".*"caller":"[^"]*etcd`).MatchString(got) {
		t.Errorf("no etcd log line in the output:\n%.2000s", got)
	}
}
