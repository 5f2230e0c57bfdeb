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
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"testing"

	. "github.com/onsi/gomega"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// filter calls the extender as the scheduler does and returns the nodes
// it kept.
func filter(g Gomega, c *http.Client, url string, nodes []string) []string {
	body, err := json.Marshal(&extenderv1.ExtenderArgs{NodeNames: &nodes})
	g.Expect(err).NotTo(HaveOccurred())
	resp, err := c.Post(url+"/filter", "application/json", bytes.NewReader(body))
	g.Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	var res extenderv1.ExtenderFilterResult
	g.Expect(json.NewDecoder(resp.Body).Decode(&res)).To(Succeed())
	g.Expect(res.NodeNames).NotTo(BeNil())
	return *res.NodeNames
}

func TestServer(t *testing.T) {
	g := NewWithT(t)
	plain := Start(false)
	defer plain.Close()
	g.Expect(plain.URL).To(HavePrefix("http://127.0.0.1:"))
	g.Expect(filter(g, http.DefaultClient, plain.URL, []string{"a", "b"})).To(Equal([]string{"a", "b"}))
	g.Expect(plain.Calls()).To(BeEquivalentTo(1))

	secure := Start(true)
	defer secure.Close()
	g.Expect(secure.URL).To(HavePrefix("https://127.0.0.1:"))
	ca1, cert1, err := ServingCert()
	g.Expect(err).NotTo(HaveOccurred())
	ca2, cert2, err := ServingCert()
	g.Expect(err).NotTo(HaveOccurred())
	client := func(ca []byte) *http.Client {
		pool := x509.NewCertPool()
		g.Expect(pool.AppendCertsFromPEM(ca)).To(BeTrue())
		return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	}
	secure.SetCertificate(cert1)
	g.Expect(filter(g, client(ca1), secure.URL, []string{"n"})).To(Equal([]string{"n"}))

	// A replaced certificate is presented from the next call on: the old
	// CA no longer trusts the server, the new one does.
	secure.SetCertificate(cert2)
	_, err = client(ca1).Post(secure.URL+"/filter", "application/json", bytes.NewReader([]byte("{}")))
	g.Expect(err).To(MatchError(ContainSubstring("certificate signed by unknown authority")))
	g.Expect(filter(g, client(ca2), secure.URL, []string{"n"})).To(Equal([]string{"n"}))
	g.Expect(secure.Calls()).To(BeEquivalentTo(2))
}
