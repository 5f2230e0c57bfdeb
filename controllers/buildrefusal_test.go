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
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/scheduler"
)

// defaultProfile is upstream's default profile serving name, with mutate
// applied to it.
func defaultProfile(t *testing.T, name string, mutate func(*config.KubeSchedulerProfile)) config.KubeSchedulerProfile {
	t.Helper()
	p, err := scheduler.DefaultProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(&p)
	}
	return p
}

func enable(set *config.PluginSet, names ...string) {
	for _, n := range names {
		set.Enabled = append(set.Enabled, config.Plugin{Name: n})
	}
}

// TestBuildRefusalOfRealBuilds classifies the errors of frameworks that
// really fail to build, in the scheduler this package drives: when
// upstream words an error differently, the reason here must not silently
// change.
func TestBuildRefusalOfRealBuilds(t *testing.T) {
	cs := fake.NewClientset()
	sched, err := scheduler.New(cs, informers.NewSharedInformerFactory(cs, 0))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sched.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})

	tests := []struct {
		name      string
		mutate    func(*config.KubeSchedulerProfile)
		extenders []config.Extender
		reason    string
		contains  []string
	}{{
		name:     "unknown plugin",
		mutate:   func(p *config.KubeSchedulerProfile) { enable(&p.Plugins.Filter, "NoSuchPlugin") },
		reason:   v1alpha1.ReasonUnknownPlugin,
		contains: []string{`FilterPlugin "NoSuchPlugin" does not exist`},
	}, {
		name:     "plugin at an extension point it does not implement",
		mutate:   func(p *config.KubeSchedulerProfile) { enable(&p.Plugins.Filter, "PrioritySort") },
		reason:   v1alpha1.ReasonUnknownPlugin,
		contains: []string{`plugin "PrioritySort" does not extend FilterPlugin plugin`},
	}, {
		name: "args of another plugin's type",
		mutate: func(p *config.KubeSchedulerProfile) {
			for i := range p.PluginConfig {
				if p.PluginConfig[i].Name == "NodeResourcesFit" {
					p.PluginConfig[i].Args = &config.InterPodAffinityArgs{}
				}
			}
		},
		reason:   v1alpha1.ReasonInvalidPluginArgs,
		contains: []string{`initializing plugin "NodeResourcesFit"`},
	}, {
		name: "two configs for one plugin",
		mutate: func(p *config.KubeSchedulerProfile) {
			for i := range p.PluginConfig {
				if p.PluginConfig[i].Name == "NodeResourcesFit" {
					p.PluginConfig = append(p.PluginConfig, p.PluginConfig[i])
					break
				}
			}
		},
		reason:   v1alpha1.ReasonInvalidPluginArgs,
		contains: []string{"repeated config for plugin NodeResourcesFit"},
	}, {
		name: "no queue sort plugin",
		mutate: func(p *config.KubeSchedulerProfile) {
			p.Plugins.QueueSort.Disabled = []config.Plugin{{Name: "*"}}
		},
		reason:   v1alpha1.ReasonInvalidSpec,
		contains: []string{"only one queue sort plugin required"},
	}, {
		name: "no bind plugin",
		mutate: func(p *config.KubeSchedulerProfile) {
			p.Plugins.Bind.Disabled = []config.Plugin{{Name: "*"}}
		},
		reason:   v1alpha1.ReasonInvalidSpec,
		contains: []string{"at least one bind plugin is needed"},
	}, {
		name:     "one plugin enabled twice at an extension point",
		mutate:   func(p *config.KubeSchedulerProfile) { enable(&p.Plugins.Filter, "NodeName", "NodeName") },
		reason:   v1alpha1.ReasonInvalidSpec,
		contains: []string{`plugin "NodeName" already registered as "FilterPlugin"`},
	}, {
		name: "extender whose TLS material does not load",
		extenders: []config.Extender{{
			URLPrefix:   "https://extender.example",
			FilterVerb:  "filter",
			EnableHTTPS: true,
			HTTPTimeout: metav1.Duration{Duration: time.Second},
			TLSConfig:   &config.ExtenderTLSConfig{CertData: []byte("not a certificate"), KeyData: []byte("not a key")},
		}},
		reason:   v1alpha1.ReasonBuildFailed,
		contains: []string{"extenders", "https://extender.example"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			_, err := sched.Validate(context.Background(), scheduler.Profile{
				Config:    defaultProfile(t, "refusal", tt.mutate),
				Extenders: tt.extenders,
			})
			g.Expect(err).To(HaveOccurred(), "the profile builds")
			r := buildRefusal(err)
			t.Log(r.Reason, r.Message)
			g.Expect(r.Reason).To(Equal(tt.reason), r.Message)
			for _, s := range tt.contains {
				g.Expect(r.Message).To(ContainSubstring(s))
			}
		})
	}

	t.Run("a profile that builds is not refused", func(t *testing.T) {
		_, err := sched.Validate(context.Background(), scheduler.Profile{Config: defaultProfile(t, "refusal", nil)})
		NewWithT(t).Expect(err).NotTo(HaveOccurred())
	})
}
