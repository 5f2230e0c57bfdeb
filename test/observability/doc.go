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

// Package observability checks what the project ships for watching the
// operator, without a cluster: the alerting rules of config/prometheus
// (each alert links a runbook section of docs/troubleshooting.md that
// exists, and has a promtool test case where it fires and one where it
// must not; promtool itself runs them in make test-alerts). That every
// metric the alerts and the dashboard read exists in a scrape of the
// operator after a workload is checked at the end of the controllers'
// envtest suite (controllers/metric_names_test.go).
package observability
