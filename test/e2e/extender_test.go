package e2e

import (
	"crypto/tls"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/profile-scheduler/profile-scheduler/internal/testenv/fakeextender"
)

// newTLSExtender starts a fake HTTPS extender that serves until the spec
// ends; its certificate is set with SetCertificate.
func newTLSExtender() *fakeextender.Server {
	ext := fakeextender.Start(true)
	DeferCleanup(ext.Close)
	return ext
}

// newServingCert returns a certificate for 127.0.0.1 signed by a new CA,
// and that CA (PEM) for a ca.crt key.
func newServingCert() ([]byte, *tls.Certificate) {
	ca, cert, err := fakeextender.ServingCert()
	Expect(err).NotTo(HaveOccurred())
	return ca, cert
}
