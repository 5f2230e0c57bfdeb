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
	"crypto/tls"
	"fmt"
	"net/http"
	"time"

	schedv1 "k8s.io/kube-scheduler/config/v1"
)

// Names of the two schedulers in reports and on the command line.
const (
	Upstream = "upstream"
	Ours     = "ours"
)

// Settings are what both schedulers get alike.
type Settings struct {
	// QPS and Burst of the scheduler's API client.
	QPS   float32 `json:"qps"`
	Burst int     `json:"burst"`
	// Parallelism of filtering and scoring.
	Parallelism int `json:"parallelism"`
	// SchedulerName the profile serves and pods ask for.
	SchedulerName string `json:"schedulerName"`
}

// Scheduler is one scheduler under test. Start, then Stop, once per run.
type Scheduler interface {
	// Name is Upstream or Ours.
	Name() string
	// Start starts the process with prof and returns once prof serves.
	Start(ctx context.Context, prof schedv1.KubeSchedulerProfile) error
	// StartProfiles starts one process serving every profile of profs
	// (Start is StartProfiles with one profile and no extender) and
	// returns once each serves.
	StartProfiles(ctx context.Context, profs []ServedProfile) error
	// Usage is the CPU time and peak RSS consumed so far in this run (all
	// processes of the run, for a scheduler that was restarted).
	Usage() Usage
	// Stop stops every process of the run and cleans up what Start made.
	Stop(ctx context.Context) Usage
	// PID of the running process, 0 when none runs.
	PID() int
	// PprofURL is the base URL of the running process's /debug/pprof
	// endpoints, "" when none runs or it was started without them.
	PprofURL() string
}

// ServedProfile is one of the profiles a scheduler process serves, and the
// HTTP extenders it calls.
type ServedProfile struct {
	Profile   schedv1.KubeSchedulerProfile
	Extenders []Extender
}

// Extender is an HTTP extender a profile calls. kube-scheduler's extenders
// are global, its configuration's own: each is called for every pod it is
// interested in (any pod, or with managedResources only the pods that
// request one of them), whichever profile schedules the pod. Ours are
// ExtenderConfigs, called by the profiles that name them only.
type Extender struct {
	// Name names the ExtenderConfig.
	Name   string
	Config schedv1.Extender
}

var httpClient = &http.Client{
	Timeout:   2 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, // self-signed serving cert of a local process
}

func probeURL(url string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", url, resp.Status)
		}
		return nil
	}
}

func add(a, b Usage) Usage {
	return Usage{CPUSeconds: a.CPUSeconds + b.CPUSeconds, PeakRSSBytes: max(a.PeakRSSBytes, b.PeakRSSBytes)}
}
