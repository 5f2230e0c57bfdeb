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

package controllers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/webhookcert"
)

// The fuzz targets feed the conversion of SchedulerProfiles and of
// ExtenderConfigs with any input that decodes into their spec. Each input
// must be answered, within fuzzDeadline, by a result or by a refusal with
// a known reason whose message names the field or the plugin at fault.
// The seed corpus is config/samples, every case of TestConvertProfile and
// TestUpstreamExtender, and testdata/fuzz. `make fuzz` runs each target for
// FUZZTIME; a crasher it finds lands in testdata/fuzz/<target> and stays
// there as a regression seed.

// fuzzDeadline bounds one conversion: it takes milliseconds, so more than
// this is a hang, even on a loaded machine.
const fuzzDeadline = 10 * time.Second

// refusalReasons are the reasons a conversion may give.
var refusalReasons = []string{
	v1alpha1.ReasonInvalidSpec, v1alpha1.ReasonInvalidPluginArgs, v1alpha1.ReasonUnknownPlugin,
	v1alpha1.ReasonInvalidTLS, v1alpha1.ReasonSecretNotFound, v1alpha1.ReasonSecretNamespaceNotAllowed,
}

// convertInput is the input of FuzzConvertProfile, as JSON.
type convertInput struct {
	Name      string                        `json:"name"`
	Spec      v1alpha1.SchedulerProfileSpec `json:"spec"`
	Extenders []config.Extender             `json:"extenders,omitempty"`
}

// extenderInput is the input of FuzzResolveExtender, as JSON; the Secret's
// data are separate fuzz arguments.
type extenderInput struct {
	Name             string                      `json:"name"`
	Spec             v1alpha1.ExtenderConfigSpec `json:"spec"`
	SecretsNamespace string                      `json:"secretsNamespace,omitempty"`
}

func FuzzConvertProfile(f *testing.F) {
	add := func(in convertInput) {
		data, err := json.Marshal(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, obj := range samples(f) {
		if obj.GetObjectKind().GroupVersionKind().Kind != "SchedulerProfile" {
			continue
		}
		sp := obj.(*v1alpha1.SchedulerProfile)
		add(convertInput{Name: sp.Name, Spec: sp.Spec})
	}
	for _, c := range convertProfileCases() {
		add(convertInput{Name: "p", Spec: c.spec, Extenders: c.extenders})
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		var in convertInput
		if err := json.Unmarshal(data, &in); err != nil {
			return
		}
		sp := &v1alpha1.SchedulerProfile{ObjectMeta: metav1.ObjectMeta{Name: in.Name, Generation: 1}, Spec: in.Spec}
		var prof *config.KubeSchedulerProfile
		var refusal *Refusal
		withinDeadline(t, func() { prof, refusal = convertProfile(sp, in.Extenders) })
		if refusal == nil {
			if prof == nil {
				t.Fatal("no profile and no refusal")
			}
			if prof.SchedulerName != sp.EffectiveSchedulerName() {
				t.Fatalf("schedulerName %q, want %q", prof.SchedulerName, sp.EffectiveSchedulerName())
			}
			return
		}
		checkRefusal(t, refusal, profilePluginNames(sp))
	})
}

func FuzzResolveExtender(f *testing.F) {
	caPEM, _, certPEM, keyPEM, err := webhookcert.Generate(time.Now(), time.Hour, []string{"localhost"}, nil)
	if err != nil {
		f.Fatal(err)
	}
	add := func(in extenderInput, secret *corev1.Secret) {
		data, err := json.Marshal(in)
		if err != nil {
			f.Fatal(err)
		}
		if secret == nil {
			f.Add(data, false, []byte(nil), []byte(nil), []byte(nil))
			return
		}
		f.Add(data, true, secret.Data[v1alpha1.SecretKeyCA], secret.Data[v1alpha1.SecretKeyCert], secret.Data[v1alpha1.SecretKeyKey])
	}
	for _, obj := range samples(f) {
		if ec, ok := obj.(*v1alpha1.ExtenderConfig); ok {
			add(extenderInput{Name: ec.Name, Spec: ec.Spec}, nil)
		}
	}
	for _, c := range upstreamExtenderCases(caPEM, certPEM, keyPEM) {
		ns := ""
		if c.spec.TLSConfig != nil && c.spec.TLSConfig.SecretRef != nil {
			ns = c.spec.TLSConfig.SecretRef.Namespace
		}
		add(extenderInput{Name: "e", Spec: c.spec, SecretsNamespace: ns}, c.secret)
	}
	// A Secret of another namespace, and one in the extender-secrets
	// namespace named without a namespace.
	tlsSpec := v1alpha1.ExtenderConfigSpec{URLPrefix: "https://ext.example/x", FilterVerb: "filter",
		TLSConfig: &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Namespace: "kube-system", Name: "tls"}}}
	add(extenderInput{Name: "e", Spec: tlsSpec, SecretsNamespace: "ops"}, &corev1.Secret{Data: map[string][]byte{v1alpha1.SecretKeyCA: caPEM}})
	tlsSpec.TLSConfig = &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Name: "tls"}}
	add(extenderInput{Name: "e", Spec: tlsSpec, SecretsNamespace: "ops"}, &corev1.Secret{Data: map[string][]byte{v1alpha1.SecretKeyCA: caPEM}})

	f.Fuzz(func(t *testing.T, data []byte, exists bool, ca, cert, key []byte) {
		var in extenderInput
		if err := json.Unmarshal(data, &in); err != nil {
			return
		}
		ec := &v1alpha1.ExtenderConfig{ObjectMeta: metav1.ObjectMeta{Name: in.Name, Generation: 1}, Spec: in.Spec}
		want := secretsNamespace(in.SecretsNamespace)
		r := &secretReader{t: t, namespace: want}
		if exists {
			r.data = map[string][]byte{v1alpha1.SecretKeyCA: ca, v1alpha1.SecretKeyCert: cert, v1alpha1.SecretKeyKey: key}
		}
		var ext config.Extender
		var refusal *Refusal
		var readErr error
		withinDeadline(t, func() { ext, refusal, readErr = buildExtender(context.Background(), r, ec, in.SecretsNamespace) })
		if readErr != nil {
			t.Fatalf("a Secret that exists or not is a result, not an error: %v", readErr)
		}
		if refusal == nil {
			if ext.URLPrefix != in.Spec.URLPrefix {
				t.Fatalf("urlPrefix %q, want %q", ext.URLPrefix, in.Spec.URLPrefix)
			}
			if ref := secretRefOf(ec); ref != nil && ref.Namespace != "" && ref.Namespace != want {
				t.Fatalf("a Secret of namespace %q was used, only %q is allowed", ref.Namespace, want)
			}
			return
		}
		checkRefusal(t, refusal, nil)
	})
}

// withinDeadline runs fn and fails when it does not return in time.
func withinDeadline(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(fuzzDeadline):
		t.Fatalf("no answer within %s", fuzzDeadline)
	}
}

// checkRefusal asserts that r has a known reason and that its message
// names a field of the spec ("spec." or "spec:") or a plugin of plugins.
func checkRefusal(t *testing.T, r *Refusal, plugins []string) {
	t.Helper()
	if !slices.Contains(refusalReasons, r.Reason) {
		t.Fatalf("refusal with unexpected reason %q: %s", r.Reason, r.Message)
	}
	if strings.Contains(r.Message, "spec.") || strings.Contains(r.Message, "spec:") {
		return
	}
	for _, p := range plugins {
		if p != "" && (strings.Contains(r.Message, "plugin "+p) || strings.Contains(r.Message, `"`+p+`"`)) {
			return
		}
	}
	t.Fatalf("refusal %s names no field and no plugin: %s", r.Reason, r.Message)
}

// profilePluginNames lists every plugin name the spec mentions.
func profilePluginNames(sp *v1alpha1.SchedulerProfile) []string {
	var out []string
	for _, pc := range sp.Spec.PluginConfig {
		out = append(out, pc.Name)
	}
	if p := sp.Spec.Plugins; p != nil {
		for _, set := range []v1alpha1.PluginSet{p.MultiPoint, p.QueueSort, p.PreEnqueue, p.PreFilter, p.Filter, p.PostFilter,
			p.PreScore, p.Score, p.Reserve, p.Permit, p.PreBind, p.Bind, p.PostBind} {
			for _, pl := range slices.Concat(set.Enabled, set.Disabled) {
				out = append(out, pl.Name)
			}
		}
	}
	return out
}

func secretRefOf(ec *v1alpha1.ExtenderConfig) *v1alpha1.SecretReference {
	if ec.Spec.TLSConfig == nil {
		return nil
	}
	return ec.Spec.TLSConfig.SecretRef
}

// secretReader serves one Secret, of any name, in namespace; it fails the
// test when asked for a Secret of another namespace.
type secretReader struct {
	t         *testing.T
	namespace string
	data      map[string][]byte
}

var _ client.Reader = &secretReader{}

func (r *secretReader) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	if key.Namespace != r.namespace {
		r.t.Errorf("read Secret %s outside the extender-secrets namespace %q", key, r.namespace)
	}
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return errors.New("secretReader serves Secrets only")
	}
	if r.data == nil {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, key.Name)
	}
	*s = corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}, Data: r.data}
	return nil
}

func (r *secretReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return errors.New("secretReader does not list")
}

// samples decodes the objects of config/samples.
func samples(tb testing.TB) []client.Object {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("..", "config", "samples", "*.yaml"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no samples in config/samples: %v", err)
	}
	var out []client.Object
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var meta metav1.TypeMeta
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				tb.Fatalf("%s: %v", file, err)
			}
			if err := json.Unmarshal(raw, &meta); err != nil {
				tb.Fatalf("%s: %v", file, err)
			}
			var obj client.Object
			switch meta.Kind {
			case "SchedulerProfile":
				obj = &v1alpha1.SchedulerProfile{}
			case "ExtenderConfig":
				obj = &v1alpha1.ExtenderConfig{}
			default:
				continue
			}
			if err := json.Unmarshal(raw, obj); err != nil {
				tb.Fatalf("%s: %v", file, err)
			}
			out = append(out, obj)
		}
	}
	return out
}
