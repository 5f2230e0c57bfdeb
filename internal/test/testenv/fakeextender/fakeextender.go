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

package fakeextender

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	certutil "k8s.io/client-go/util/cert"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// Server is a running extender. Its URL is an ExtenderConfig's urlPrefix;
// its filter verb is anything under it.
type Server struct {
	URL string

	srv   *httptest.Server
	calls atomic.Int64
	cert  atomic.Pointer[tls.Certificate]
}

// Start serves plain HTTP, or TLS with the certificate SetCertificate
// gives (set it before the first call). Keep-alives are off: every call
// opens a connection, so a replaced certificate is presented from the next
// call on. Close stops it.
func Start(useTLS bool) *Server {
	s := &Server{}
	s.srv = httptest.NewUnstartedServer(s)
	s.srv.Config.SetKeepAlivesEnabled(false)
	scheme := "http://"
	if useTLS {
		s.srv.Listener = tls.NewListener(s.srv.Listener, &tls.Config{
			GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return s.cert.Load(), nil },
		})
		scheme = "https://"
	}
	s.srv.Start()
	s.URL = scheme + s.srv.Listener.Addr().String() + "/scheduler"
	return s
}

// ServeHTTP answers a filter call with every node it was given.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.calls.Add(1)
	var args extenderv1.ExtenderArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	_ = json.NewEncoder(w).Encode(&extenderv1.ExtenderFilterResult{NodeNames: args.NodeNames})
}

// Calls is the number of calls served so far.
func (s *Server) Calls() int64 { return s.calls.Load() }

// SetCertificate makes the TLS server present cert from the next call on.
func (s *Server) SetCertificate(cert *tls.Certificate) { s.cert.Store(cert) }

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// ServingCert returns a certificate for 127.0.0.1 signed by a new CA, and
// that CA (PEM), for the ca.crt key of an ExtenderConfig's Secret.
func ServingCert() ([]byte, *tls.Certificate, error) {
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		return nil, nil, err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, err
	}
	// certPEM is the serving certificate followed by its CA.
	certs, err := certutil.ParseCertsPEM(certPEM)
	if err != nil {
		return nil, nil, err
	}
	if len(certs) != 2 {
		return nil, nil, fmt.Errorf("want a certificate and its CA, got %d certificates", len(certs))
	}
	ca, err := certutil.EncodeCertificates(certs[1])
	if err != nil {
		return nil, nil, err
	}
	return ca, &pair, nil
}
