package e2e

import (
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	certutil "k8s.io/client-go/util/cert"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// tlsExtender is an HTTPS scheduler extender whose filter keeps every
// node; its certificate can be replaced while it runs.
type tlsExtender struct {
	calls atomic.Int64
	cert  atomic.Pointer[tls.Certificate]
	url   string
}

func (e *tlsExtender) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.calls.Add(1)
	var args extenderv1.ExtenderArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	_ = json.NewEncoder(w).Encode(&extenderv1.ExtenderFilterResult{NodeNames: args.NodeNames})
}

// newTLSExtender serves until the spec ends. Keep-alives are off, so a
// replaced certificate is presented from the next call on.
func newTLSExtender() *tlsExtender {
	e := &tlsExtender{}
	srv := httptest.NewUnstartedServer(e)
	srv.Config.SetKeepAlivesEnabled(false)
	srv.Listener = tls.NewListener(srv.Listener, &tls.Config{
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return e.cert.Load(), nil },
	})
	srv.Start()
	DeferCleanup(srv.Close)
	e.url = "https://" + srv.Listener.Addr().String() + "/scheduler"
	return e
}

// newServingCert returns a certificate for 127.0.0.1 signed by a new CA,
// and that CA (PEM) for a ca.crt key.
func newServingCert() ([]byte, *tls.Certificate) {
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	Expect(err).NotTo(HaveOccurred())
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	Expect(err).NotTo(HaveOccurred())
	// certPEM is the serving certificate followed by its CA.
	certs, err := certutil.ParseCertsPEM(certPEM)
	Expect(err).NotTo(HaveOccurred())
	Expect(certs).To(HaveLen(2))
	ca, err := certutil.EncodeCertificates(certs[1])
	Expect(err).NotTo(HaveOccurred())
	return ca, &pair
}
