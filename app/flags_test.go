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

package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	goruntime "runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// mainArgsEnv makes the test binary run Main with these arguments
// (separated by newlines) instead of the tests: a real process, with a
// logging configuration of its own.
const mainArgsEnv = "PROFILE_SCHEDULER_APP_TEST_MAIN_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(mainArgsEnv); ok {
		os.Args = append([]string{"profile-scheduler"}, strings.Split(args, "\n")...)
		Main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runMain runs Main in a process of its own and returns its stdout,
// stderr and exit code.
func runMain(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), mainArgsEnv+"="+strings.Join(args, "\n"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// TestCommandLogsJSON runs the command with --logging-format=json and a
// kubeconfig that does not exist: every line it logs, up to the error it
// stops on, is a JSON object; -v=1 adds the flags it runs with, as
// kube-scheduler logs them.
func TestCommandLogsJSON(t *testing.T) {
	g := NewWithT(t)
	stdout, stderr, code := runMain(t, "--logging-format=json", "-v=1", "--kubeconfig=/nonexistent/kubeconfig")
	g.Expect(code).To(Equal(1), stderr)
	g.Expect(stdout).To(BeEmpty())
	var msgs []string
	var stopped map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var entry map[string]any
		g.Expect(json.Unmarshal([]byte(line), &entry)).To(Succeed(), "a line that is not JSON: %q", line)
		g.Expect(entry).To(HaveKey("ts"))
		msg, _ := entry["msg"].(string)
		msgs = append(msgs, msg)
		if msg == "Operator stopped" {
			stopped = entry
		}
	}
	g.Expect(msgs).To(ContainElement(`FLAG: --logging-format="json"`))
	g.Expect(msgs).To(ContainElement("Starting"))
	g.Expect(stopped).To(HaveKeyWithValue("err", ContainSubstring("/nonexistent/kubeconfig")))

	// The default stays klog's text, and -v=0 logs no flags.
	_, stderr, code = runMain(t, "--kubeconfig=/nonexistent/kubeconfig")
	g.Expect(code).To(Equal(1), stderr)
	g.Expect(stderr).To(MatchRegexp(`(?m)^I\d{4} [0-9:.]+ +\d+ command\.go:\d+\] "Starting" `))
	g.Expect(stderr).NotTo(ContainSubstring("FLAG:"))
	g.Expect(stderr).NotTo(ContainSubstring("{"))

	_, stderr, code = runMain(t, "--logging-format=xml")
	g.Expect(code).To(Equal(1))
	g.Expect(stderr).To(ContainSubstring(`format: Invalid value: \"xml\": Unsupported log format`))
}

// TestCommandHelpSections: -h prints the flags section by section, as
// kube-scheduler's does, with component-base's logging flags and none of
// klog's legacy ones.
func TestCommandHelpSections(t *testing.T) {
	g := NewWithT(t)
	withLocalMode(t)
	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"-h"})
	g.Expect(cmd.Execute()).To(Succeed())
	help := out.String()
	last := -1
	for _, section := range []string{"Api server flags:", "Scheduling flags:", "Leader election flags:", "Metrics and probes flags:",
		"Webhook flags:", "Local mode flags:", "Feature gate flags:", "Logs flags:", "Global flags:"} {
		i := strings.Index(help, "\n"+section+"\n")
		g.Expect(i).To(BeNumerically(">", last), "section %q missing or out of order in\n%s", section, help)
		last = i
	}
	logs := help[strings.Index(help, "\nLogs flags:\n"):strings.Index(help, "\nGlobal flags:\n")]
	for _, flag := range []string{"--logging-format", "-v, --v", "--vmodule", "--log-flush-frequency"} {
		g.Expect(logs).To(ContainSubstring(flag))
	}
	g.Expect(logs).To(ContainSubstring(`Permitted formats: "json"`))
	for _, legacy := range []string{"log_dir", "log-dir", "logtostderr", "alsologtostderr", "skip_log_headers", "log_file", "stderrthreshold", "one_output", "add_dir_header", "skip_headers"} {
		g.Expect(help).NotTo(ContainSubstring(legacy))
	}
}

// TestCommandFlagNames: every flag the operator had keeps its name; klog's
// legacy flags are refused.
func TestCommandFlagNames(t *testing.T) {
	g := NewWithT(t)
	withLocalMode(t)
	cmd := NewCommand()
	for _, name := range []string{
		"kubeconfig", "local", "local-dir", "leader-elect", "leader-elect-id", "leader-elect-namespace",
		"leader-elect-lease-duration", "leader-elect-renew-deadline", "leader-elect-retry-period",
		"metrics-bind-address", "metrics-secure", "health-probe-bind-address", "pprof-bind-address", "contention-profiling",
		"parallelism", "kube-api-qps", "kube-api-burst", "pod-initial-backoff", "pod-max-backoff",
		"allow-default-scheduler", "bind-check", "bind-arbiter", "extender-secrets-namespace", "enable-webhook", "webhook-port",
		"webhook-cert-dir", "webhook-self-signed", "webhook-service-name", "webhook-service-namespace",
		"webhook-configuration-name", "version", "feature-gates", "v", "vmodule",
	} {
		g.Expect(cmd.Flags().Lookup(name)).NotTo(BeNil(), "flag --%s", name)
	}
	g.Expect(cmd.Flags().ShorthandLookup("v")).NotTo(BeNil())

	cmd = NewCommand()
	cmd.SetArgs([]string{"--logtostderr=false"})
	g.Expect(cmd.Execute()).To(MatchError(ContainSubstring("unknown flag: --logtostderr")))
}

// TestContentionProfiling: --contention-profiling without a pprof address
// stops the command before it starts anything, naming both flags; with
// one, the process records contended locks and blocking waits, which
// /debug/pprof/mutex and /debug/pprof/block then serve.
func TestContentionProfiling(t *testing.T) {
	g := NewWithT(t)
	_, stderr, code := runMain(t, "--contention-profiling", "--kubeconfig=/nonexistent/kubeconfig")
	g.Expect(code).To(Equal(1), stderr)
	g.Expect(stderr).To(ContainSubstring("--contention-profiling needs --pprof-bind-address"))
	g.Expect(stderr).NotTo(ContainSubstring("/nonexistent/kubeconfig"), "the kubeconfig is read after the flags are checked")

	// Off by default: nothing is recorded.
	g.Expect(goruntime.SetMutexProfileFraction(-1)).To(Equal(0))
	defer goruntime.SetMutexProfileFraction(0)
	defer goruntime.SetBlockProfileRate(0)
	mutexes, blocks := pprof.Lookup("mutex").Count(), pprof.Lookup("block").Count()
	g.Expect(startContentionProfiling("127.0.0.1:0")).To(Succeed())
	g.Expect(goruntime.SetMutexProfileFraction(-1)).To(Equal(1))

	// A lock held while another goroutine waits for it, and a wait on a
	// channel: one new record in each profile (stacks of this test).
	var mu sync.Mutex
	mu.Lock()
	locked, done := make(chan struct{}), make(chan struct{})
	go func() {
		close(locked)
		mu.Lock()
		mu.Unlock() //nolint:staticcheck // the wait is what is recorded
		close(done)
	}()
	<-locked
	time.Sleep(10 * time.Millisecond)
	mu.Unlock()
	<-done
	g.Expect(pprof.Lookup("mutex").Count()).To(BeNumerically(">", mutexes))
	g.Expect(pprof.Lookup("block").Count()).To(BeNumerically(">", blocks))
}

// withLocalMode makes the command one of a binary with local mode (as
// make run's, which imports package app/local) for the test.
func withLocalMode(t *testing.T) {
	localMode.Lock()
	saved := localMode.start
	localMode.Unlock()
	RegisterLocalMode(func(context.Context, LocalOptions) (*LocalControlPlane, error) {
		return nil, errors.New("no local mode in this test")
	})
	t.Cleanup(func() { RegisterLocalMode(saved) })
}

// TestHelpWithoutLocalMode: the image's binary, built without package
// app/local, shows no local-mode flag in -h; --local is kept, hidden, to
// say what the binary lacks (TestLocalNeedsLocalMode).
func TestHelpWithoutLocalMode(t *testing.T) {
	g := NewWithT(t)
	localMode.Lock()
	saved := localMode.start
	localMode.start = nil
	localMode.Unlock()
	t.Cleanup(func() { RegisterLocalMode(saved) })

	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"-h"})
	g.Expect(cmd.Execute()).To(Succeed())
	for _, absent := range []string{"--local", "Local mode", "local-assets", "local-dir", "envtest-assets"} {
		g.Expect(out.String()).NotTo(ContainSubstring(absent))
	}
	g.Expect(cmd.Flags().Lookup("local-assets")).To(BeNil())
	g.Expect(cmd.Flags().Lookup("local").Hidden).To(BeTrue())
}
