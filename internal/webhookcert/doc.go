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

// Package webhookcert generates and rotates the serving certificate of the
// operator's admission webhook when no cert-manager-like tool provides one.
//
// Rotator (rotator.go) generates a self-signed CA and a serving
// certificate it signs (Generate, generate.go) for the webhook Service's
// DNS names, writes tls.crt and tls.key into the cert directory (the
// webhook server reloads them), and renews both when a third of their
// lifetime remains. It merges its CA into the caBundle of every webhook of
// one ValidatingWebhookConfiguration (cabundle.go). Every replica has its
// own CA; none replaces the bundle: each adds its CA when absent and drops
// expired or unparseable certificates (the bundle is bounded), with
// optimistic locking, and checks again every minute and after a rotation,
// so the API server trusts whichever replica it reaches.
//
// This package never touches a cert directory holding a certificate it did
// not generate (one a cert-manager mounts), never writes anything but the
// caBundle of the configuration it is given, and needs no leader: every
// replica serves the webhook.
package webhookcert
