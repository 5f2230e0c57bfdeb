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

package e2e

import (
	"crypto/tls"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv/fakeextender"
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
