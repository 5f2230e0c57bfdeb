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

package harness

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Metrics is a Prometheus text exposition, as a process's /metrics serves
// it.
type Metrics string

// Sum adds the samples of the metric named name whose labels include
// every pair of match (none: all its samples). A histogram's samples are
// name_sum and name_count.
func (m Metrics) Sum(name string, match map[string]string) float64 {
	var sum float64
	for _, line := range strings.Split(string(m), "\n") {
		if line == "" || line[0] == '#' || !strings.HasPrefix(line, name) {
			continue
		}
		rest := line[len(name):]
		labels := ""
		switch {
		case strings.HasPrefix(rest, "{"):
			end := strings.LastIndex(rest, "}")
			if end < 0 {
				continue
			}
			labels, rest = rest[1:end], rest[end+1:]
		case strings.HasPrefix(rest, " "):
		default:
			continue // another metric whose name starts with name
		}
		if !labelsMatch(labels, match) {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			continue
		}
		sum += v
	}
	return sum
}

// labelsMatch reports whether labels (k="v",... as the exposition writes
// them) hold every pair of match.
func labelsMatch(labels string, match map[string]string) bool {
	for k, v := range match {
		if !strings.Contains(","+labels+",", ","+k+"="+strconv.Quote(v)+",") {
			return false
		}
	}
	return true
}

// fetchMetrics reads url (a process's /metrics).
func fetchMetrics(ctx context.Context, url string) (Metrics, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", url, resp.Status)
	}
	return Metrics(body), nil
}

// apiServerMetrics reads kube-apiserver's /metrics with the harness's
// credentials.
func (r *Runner) apiServerMetrics(ctx context.Context) (Metrics, error) {
	body, err := r.CP.Core.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	return Metrics(body), err
}

// nodePodLists counts the LISTs of pods across all namespaces that
// kube-apiserver served so far: the bind check's reads of a node's pods
// (informers list once at their start, the harness's overcommit check
// once per run).
func nodePodLists(m Metrics) float64 {
	return m.Sum("apiserver_request_total", map[string]string{"verb": "LIST", "resource": "pods", "scope": "cluster"})
}
