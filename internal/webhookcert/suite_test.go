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

package webhookcert_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// The suite runs one control plane (no CRDs: the rotators write a
// ValidatingWebhookConfiguration only) for the specs of several replicas
// merging their CAs into one caBundle.

const timeout = 30 * time.Second

var (
	env      *envtest.Environment
	k8s      client.Client
	suiteCtx context.Context
	cancel   context.CancelFunc
)

func TestWebhookCert(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "webhookcert")
}

var _ = BeforeSuite(func() {
	suiteCtx, cancel = context.WithCancel(context.Background())
	var (
		cfg *rest.Config
		err error
	)
	env, cfg, err = controlplane.Start(controlplane.WithCRDs([]*apiextensionsv1.CustomResourceDefinition{}))
	Expect(err).NotTo(HaveOccurred())
	k8s, err = client.New(cfg, client.Options{Scheme: clientgoscheme.Scheme})
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	if cancel != nil {
		cancel()
	}
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
})
