package operator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestSchedulerClientsDoNotAskForGzip sends a request through each of the
// scheduler's clients to a real HTTP server and checks what it asked for:
// no gzip (the API server would otherwise compress every watch event), and
// the scheduler's user agent on the scheduling client.
func TestSchedulerClientsDoNotAskForGzip(t *testing.T) {
	var mu sync.Mutex
	var seen []http.Header
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer srv.Close()

	// TLS, as an API server is: over plain HTTP client-go uses Go's
	// default transport, whatever the config says.
	schedCfg, eventCfg := schedulerClientConfigs(&rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	for name, cfg := range map[string]*rest.Config{"scheduler": schedCfg, "events": eventCfg} {
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatalf("%s client: %v", name, err)
		}
		// The server answers 404; only the request matters.
		_, _ = cs.CoreV1().Pods("default").Get(context.Background(), "p", metav1.GetOptions{})
		mu.Lock()
		got := seen
		seen = nil
		mu.Unlock()
		if len(got) != 1 {
			t.Fatalf("%s client: server saw %d requests, want 1", name, len(got))
		}
		h := got[0]
		if enc := h.Get("Accept-Encoding"); strings.Contains(enc, "gzip") {
			t.Errorf("%s client asks for Accept-Encoding %q, want no gzip", name, enc)
		}
		if name == "scheduler" && !strings.Contains(h.Get("User-Agent"), "scheduler") {
			t.Errorf("scheduler client's User-Agent is %q, want it to name the scheduler", h.Get("User-Agent"))
		}
	}
}
