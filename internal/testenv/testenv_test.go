package testenv

import (
	"bytes"
	"regexp"
	"sync"
	"testing"
)

// lockedBuffer is written by a process's standard output and standard
// error copiers at once.
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

func TestWithOutputKeepsKubeAPIServerAndEtcdOutputApart(t *testing.T) {
	var apiserver, etcd lockedBuffer
	env, _, err := Start(WithOutput(&apiserver, &etcd))
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Stop(); err != nil {
		t.Fatal(err)
	}
	// kube-apiserver logs with klog's header, etcd in JSON, each to its own
	// writer.
	klogLine := regexp.MustCompile(`(?m)^[IWE]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+\.go:\d+\]`)
	etcdLine := regexp.MustCompile(`(?m)^\{"level":"\w+".*"caller":"[^"]*etcd`)
	if got := apiserver.String(); !klogLine.MatchString(got) || etcdLine.MatchString(got) {
		t.Errorf("kube-apiserver's output: want its klog lines and no etcd line, got:\n%.2000s", got)
	}
	if got := etcd.String(); !etcdLine.MatchString(got) || klogLine.MatchString(got) {
		t.Errorf("etcd's output: want its JSON lines and no klog line, got:\n%.2000s", got)
	}
}
