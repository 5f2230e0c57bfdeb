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

package chart

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
)

// TestImageValues checks that the image is a value, as the README's custom
// build section uses it: repository, tag and pull policy reach the
// operator's container; the tag defaults to the chart's appVersion.
func TestImageValues(t *testing.T) {
	g := NewWithT(t)
	c := deployment(t, renderChart(t)).Spec.Template.Spec.Containers[0]
	g.Expect(c.Image).To(Equal("ghcr.io/profile-scheduler/profile-scheduler:0.1.0"))
	g.Expect(c.ImagePullPolicy).To(Equal(corev1.PullIfNotPresent))

	c = deployment(t, renderChart(t, "--set",
		"image.repository=registry.example.com/team/numericlabel-scheduler,image.tag=v0.3.1,image.pullPolicy=Always",
	)).Spec.Template.Spec.Containers[0]
	g.Expect(c.Image).To(Equal("registry.example.com/team/numericlabel-scheduler:v0.3.1"))
	g.Expect(c.ImagePullPolicy).To(Equal(corev1.PullAlways))
}
