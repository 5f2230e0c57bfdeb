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
	"bytes"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestMergeCABundle(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	newCA := func(issued time.Time, validity time.Duration) []byte {
		ca, _, _, _, err := Generate(issued, validity, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ca
	}
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	own := newCA(now.Add(-time.Hour), 24*time.Hour)
	other := newCA(now.Add(-2*time.Hour), 24*time.Hour)
	expired := newCA(now.Add(-48*time.Hour), 24*time.Hour)
	garbage := []byte("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n")
	key := []byte("-----BEGIN EC PRIVATE KEY-----\nbm90IGEga2V5\n-----END EC PRIVATE KEY-----\n")
	many := make([][]byte, 20)
	for i := range many {
		many[i] = newCA(now.Add(-time.Duration(100-i)*time.Minute), 24*time.Hour)
	}

	tests := []struct {
		name   string
		bundle []byte
		own    []byte
		limit  int
		want   []byte
	}{
		{"empty bundle takes the own CA", nil, own, 16, own},
		{"a placeholder is replaced", []byte("Cg=="), own, 16, own},
		{"another replica's CA is kept, the own one appended", other, own, 16, join(other, own)},
		{"the own CA already there: unchanged", join(own, other), own, 16, join(own, other)},
		{"expired, unparseable and non-certificate blocks are dropped", join(expired, other, garbage, key), own, 16, join(other, own)},
		{"duplicates are dropped", join(other, other), own, 16, join(other, own)},
		{"an own CA that expired is not added", other, join(own, expired), 16, join(other, own)},
		{"past the limit the first issued foreign CAs go, the own one stays", join(many...), own, 16, join(join(many[5:]...), own)},
		{"the own CAs stay even beyond the limit", join(other, own), own, 1, own},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got := mergeCABundle(tt.bundle, tt.own, now, tt.limit)
			g.Expect(string(got)).To(Equal(string(tt.want)))
			g.Expect(string(mergeCABundle(got, tt.own, now, tt.limit))).To(Equal(string(got)), "merging again changes nothing")
		})
	}
}
