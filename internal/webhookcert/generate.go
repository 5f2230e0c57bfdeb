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

package webhookcert

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// Generate returns a self-signed CA and a serving certificate it
// signs, PEM-encoded, with their keys (ECDSA P-256). Both are valid from an
// hour before now (clock skew) until now+validity. client-go's
// certutil.NewSelfSignedCACert is not used for the CA: it reads the clock
// itself and makes every CA valid for ten years, where a rotated CA must
// expire with its serving certificate to leave the other replicas'
// caBundles (mergeCABundle drops expired CAs).
func Generate(now time.Time, validity time.Duration, dnsNames []string, ips []net.IP) (caPEM, caKeyPEM, certPEM, keyPEM []byte, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	ca, err := signCert(certutil.Config{CommonName: "profile-scheduler-webhook-ca", NotBefore: now.Add(-time.Hour)}, now.Add(validity), &caKey.PublicKey, nil, caKey)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("creating CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	cn := "profile-scheduler-webhook"
	if len(dnsNames) > 0 {
		cn = dnsNames[0]
	}
	serving := certutil.Config{
		CommonName: cn,
		AltNames:   certutil.AltNames{DNSNames: dnsNames, IPs: ips},
		Usages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		NotBefore:  now.Add(-time.Hour),
	}
	cert, err := signCert(serving, now.Add(validity), &key.PublicKey, ca, caKey)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("creating serving certificate: %w", err)
	}
	if caPEM, err = certutil.EncodeCertificates(ca); err != nil {
		return nil, nil, nil, nil, err
	}
	if caKeyPEM, err = keyutil.MarshalPrivateKeyToPEM(caKey); err != nil {
		return nil, nil, nil, nil, err
	}
	if certPEM, err = certutil.EncodeCertificates(cert); err != nil {
		return nil, nil, nil, nil, err
	}
	if keyPEM, err = keyutil.MarshalPrivateKeyToPEM(key); err != nil {
		return nil, nil, nil, nil, err
	}
	return caPEM, caKeyPEM, certPEM, keyPEM, nil
}

// signCert issues the certificate cfg describes for pub, valid from
// cfg.NotBefore until notAfter, signed by ca's key caKey; with a nil ca it
// is a self-signed CA certificate.
func signCert(cfg certutil.Config, notAfter time.Time, pub crypto.PublicKey, ca *x509.Certificate, caKey crypto.Signer) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cfg.CommonName, Organization: cfg.Organization},
		DNSNames:     cfg.AltNames.DNSNames,
		IPAddresses:  cfg.AltNames.IPs,
		NotBefore:    cfg.NotBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  cfg.Usages,
	}
	parent := ca
	if ca == nil {
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		tmpl.BasicConstraintsValid, tmpl.IsCA = true, true
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, caKey)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}
