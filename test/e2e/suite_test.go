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

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/profile-scheduler/profile-scheduler/app/operator"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

var (
	env       *envtest.Environment
	cfg       *rest.Config
	k8s       client.Client
	binary    string
	auditPath string
	workDir   string
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "operator end to end")
}

// auditPolicy records who created bindings and who asked for Secrets.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
    resources:
      - group: ""
        resources: ["pods/binding", "secrets"]
  - level: None
`

// refuseMarkedRoutes is a static admission policy of the tests only: it
// refuses a write of a RoutingTable with a route whose name holds
// "refuse-me", so that the operator meets a refusal of its own write.
const refuseMarkedRoutes = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: e2e-refuse-marked-routes.static.k8s.io
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: ["scheduling.profilescheduler.io"]
        apiVersions: ["*"]
        operations: ["CREATE", "UPDATE"]
        resources: ["routingtables"]
  validations:
    - expression: "!has(object.spec.routes) || !object.spec.routes.exists(r, r.name.contains('refuse-me'))"
      message: "e2e test guard: a route selects refuse-me"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: e2e-refuse-marked-routes.static.k8s.io
spec:
  policyName: e2e-refuse-marked-routes.static.k8s.io
  validationActions: ["Deny"]
`

var _ = BeforeSuite(func() {
	var err error
	workDir, err = os.MkdirTemp("", "profile-scheduler-e2e-")
	Expect(err).NotTo(HaveOccurred())

	By("building the operator binary")
	binary = buildTool("profile-scheduler", ".")

	By("starting a control plane with an audit log")
	policy := filepath.Join(workDir, "audit-policy.yaml")
	Expect(os.WriteFile(policy, []byte(auditPolicy), 0o600)).To(Succeed())
	auditPath = filepath.Join(workDir, "audit.log")
	env, cfg, err = controlplane.Start(
		controlplane.WithAPIServerArg("audit-policy-file", policy),
		controlplane.WithAPIServerArg("audit-log-path", auditPath),
		controlplane.WithAPIServerArg("audit-log-mode", "blocking"),
		// PodGroups are served for the gang spec; the other specs run the
		// operator with the gate off, as by default.
		controlplane.WithPodGroups(),
		// A test guard that refuses a RoutingTable naming "refuse-me", so
		// that the operator meets a refusal of its own write.
		controlplane.WithStaticAdmission(workDir, refuseMarkedRoutes),
	)
	Expect(err).NotTo(HaveOccurred())
	k8s, err = client.New(cfg, client.Options{Scheme: operator.Scheme})
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	stopRestartedAPIServers()
	if env != nil {
		Expect(env.Stop()).To(Succeed())
	}
	switch {
	case workDir == "":
	case os.Getenv("E2E_KEEP_WORKDIR") != "":
		fmt.Fprintf(os.Stderr, "e2e work directory kept: %s\n", workDir)
	default:
		_ = os.RemoveAll(workDir)
	}
})

// instance is one operator process.
type instance struct {
	name  string
	cmd   *exec.Cmd
	probe string
	done  chan struct{}
}

// startInstance runs the operator binary as user name (a member of
// system:masters) with leader election and the given extra flags.
func startInstance(name string, extra ...string) *instance {
	return startInstanceAs(name, nil, extra...)
}

// identity is a user the operator impersonates, as its ServiceAccount would
// authenticate in a cluster.
type identity struct {
	User   string
	Groups []string
}

// startInstanceAs runs the operator binary; with as set, its kubeconfig
// impersonates that identity, so every request is authorized as it.
func startInstanceAs(name string, as *identity, extra ...string) *instance {
	probe := freeAddr()
	args := append([]string{
		"--kubeconfig", writeKubeconfig(name, as),
		"--metrics-bind-address=0",
		"--health-probe-bind-address=" + probe,
		"--kube-api-qps=500", "--kube-api-burst=1000",
	}, extra...)
	in := startProcess(name, binary, args...)
	in.probe = probe
	return in
}

// writeKubeconfig writes a kubeconfig for user name (a member of
// system:masters), impersonating as when set, and returns its path.
func writeKubeconfig(name string, as *identity) string {
	user, err := env.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
	Expect(err).NotTo(HaveOccurred())
	kubeconfig, err := user.KubeConfig()
	Expect(err).NotTo(HaveOccurred())
	if as != nil {
		kc, err := clientcmd.Load(kubeconfig)
		Expect(err).NotTo(HaveOccurred())
		for _, auth := range kc.AuthInfos {
			auth.Impersonate, auth.ImpersonateGroups = as.User, as.Groups
		}
		kubeconfig, err = clientcmd.Write(*kc)
		Expect(err).NotTo(HaveOccurred())
	}
	path := filepath.Join(workDir, name+".kubeconfig")
	Expect(os.WriteFile(path, kubeconfig, 0o600)).To(Succeed())
	return path
}

// startProcess runs bin with args, logging to the work directory; it is
// killed when the spec ends, and its log is attached to a failed spec.
func startProcess(name, bin string, args ...string) *instance {
	return startProcessEnv(name, nil, bin, args...)
}

// startProcessEnv is startProcess with env (KEY=value) added to the
// test's environment.
func startProcessEnv(name string, env []string, bin string, args ...string) *instance {
	logFile, err := os.Create(filepath.Join(workDir, name+".log"))
	Expect(err).NotTo(HaveOccurred())
	cmd := exec.Command(bin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	Expect(cmd.Start()).To(Succeed())
	in := &instance{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(in.done)
	}()
	DeferCleanup(func() {
		in.kill()
		if CurrentSpecReport().Failed() {
			data, _ := os.ReadFile(logFile.Name())
			AddReportEntry(name+" log", string(tail(data, 8000)))
		}
	})
	return in
}

// buildTool builds a Go package into the work directory once, and returns
// the binary's path: a relative package (the operator, kubectl-sp) from the
// repository's root, with the operator's go.mod; any other (a tool pinned in
// test/go.mod, such as kube-scheduler) from the test module.
func buildTool(name, pkg string) string {
	out := filepath.Join(workDir, name)
	if _, err := os.Stat(out); err == nil {
		return out
	}
	dir, err := controlplane.RepoRoot()
	if !strings.HasPrefix(pkg, ".") {
		dir, err = testenv.TestModuleRoot()
	}
	Expect(err).NotTo(HaveOccurred())
	build := exec.Command("go", "build", "-o", out, pkg)
	build.Dir = dir
	msg, err := build.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(msg))
	return out
}

// kill ends the process at once, as a node failure would: no lease release.
func (in *instance) kill() {
	select {
	case <-in.done:
		return
	default:
	}
	_ = in.cmd.Process.Signal(syscall.SIGKILL)
	<-in.done
}

// stop ends the process with SIGTERM, as the kubelet does, and waits.
func (in *instance) stop() {
	select {
	case <-in.done:
		return
	default:
	}
	_ = in.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-in.done:
	case <-time.After(30 * time.Second):
		in.kill()
	}
}

// ready reports whether the instance's /readyz answers 200.
func (in *instance) ready() error {
	resp, err := http.Get("http://" + in.probe + "/readyz")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("readyz: %s", resp.Status)
	}
	return nil
}

// freeAddr is 127.0.0.1 with a port below the kernel's ephemeral range
// (testenv.FreePort), which no listener on port 0 or outgoing connection
// takes before the operator listens on it.
func freeAddr() string {
	return fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(GinkgoT()))
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// binding is one pods/binding create seen in the audit log, with the
// user it was authorized as.
type binding struct {
	User string
	Pod  string
	Code int
	At   time.Time
}

// auditEvent is one request of the audit log, with the user it was
// authorized as (the impersonated one, when impersonated).
type auditEvent struct {
	User        string
	Verb        string
	Namespace   string
	Name        string
	Resource    string
	Subresource string
	Code        int
	At          time.Time
}

// auditEvents reads every completed request, and every started watch, of
// the audit log.
func auditEvents() []auditEvent {
	f, err := os.Open(auditPath)
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	var out []auditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Stage string                    `json:"stage"`
			Verb  string                    `json:"verb"`
			User  struct{ Username string } `json:"user"`
			// Impersonated requests are authorized as this user.
			ImpersonatedUser *struct{ Username string } `json:"impersonatedUser"`
			ObjectRef        struct {
				Namespace   string `json:"namespace"`
				Name        string `json:"name"`
				Resource    string `json:"resource"`
				Subresource string `json:"subresource"`
			} `json:"objectRef"`
			ResponseStatus struct {
				Code int `json:"code"`
			} `json:"responseStatus"`
			StageTimestamp time.Time `json:"stageTimestamp"`
		}
		Expect(json.Unmarshal(sc.Bytes(), &ev)).To(Succeed())
		// A watch is logged when it starts; it completes only when it ends.
		if ev.Stage != "ResponseComplete" && (ev.Stage != "ResponseStarted" || ev.Verb != "watch") {
			continue
		}
		user := ev.User.Username
		if ev.ImpersonatedUser != nil {
			user = ev.ImpersonatedUser.Username
		}
		out = append(out, auditEvent{
			User: user, Verb: ev.Verb,
			Namespace: ev.ObjectRef.Namespace, Name: ev.ObjectRef.Name,
			Resource: ev.ObjectRef.Resource, Subresource: ev.ObjectRef.Subresource,
			Code: ev.ResponseStatus.Code, At: ev.StageTimestamp,
		})
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
	return out
}

// bindings reads every pods/binding create from the audit log.
func bindings(context.Context) []binding {
	var out []binding
	for _, ev := range auditEvents() {
		if ev.Verb != "create" || ev.Subresource != "binding" {
			continue
		}
		out = append(out, binding{User: ev.User, Pod: ev.Namespace + "/" + ev.Name, Code: ev.Code, At: ev.At})
	}
	return out
}
