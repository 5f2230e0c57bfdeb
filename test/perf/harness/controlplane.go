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
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ControlPlane is a local etcd and kube-apiserver (the bench command starts
// one for every run).
type ControlPlane struct {
	env *envtest.Environment
	// Kubeconfig is a file the scheduler processes use (admin credentials).
	Kubeconfig string
	// Core is the harness's client for nodes, pods and namespaces.
	Core kubernetes.Interface
	// Client reads and writes SchedulerProfiles.
	Client client.WithWatch

	procs    ControlPlaneProcesses
	procsErr error
}

// StartControlPlane starts etcd and kube-apiserver from bin/k8s (or
// $KUBEBUILDER_ASSETS) with the project's CRDs installed, and writes a
// kubeconfig for them into dir. The harness's own clients get qps/burst;
// opts change kube-apiserver further (controlplane.WithPodGroups for cases with
// PodGroups).
func StartControlPlane(dir string, qps float32, burst int, opts ...controlplane.Option) (*ControlPlane, error) {
	// No kubelet runs: without TaintNodesByCondition nodes are created as
	// written, not tainted not-ready until a kubelet reports in (as in
	// upstream's scheduler_perf). ServiceAccount stays off as envtest has it.
	opts = append([]controlplane.Option{controlplane.WithAPIServerArg("disable-admission-plugins", "ServiceAccount", "TaintNodesByCondition")}, opts...)
	env, cfg, err := controlplane.Start(opts...)
	if err != nil {
		return nil, err
	}
	cp := &ControlPlane{env: env, Kubeconfig: KubeconfigPath(dir)}
	cp.procs, cp.procsErr = findProcesses()
	if err := writeKubeconfig(cfg, cp.Kubeconfig); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	// The harness shares the CPUs with the scheduler under test: it asks
	// for no gzip, so the API server does not compress every event of the
	// harness's pod watch.
	cfg = rest.CopyConfig(cfg)
	cfg.DisableCompression = true
	core := rest.CopyConfig(cfg)
	core.QPS, core.Burst = qps, burst
	core.ContentType = "application/vnd.kubernetes.protobuf"
	core.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	if cp.Core, err = kubernetes.NewForConfig(core); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	crCfg := rest.CopyConfig(cfg)
	crCfg.QPS, crCfg.Burst = qps, burst
	if cp.Client, err = client.NewWithWatch(crCfg, client.Options{Scheme: scheme}); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	// The routes program, as the installer creates it: the operator
	// writes its RoutingTable.
	if err := controlplane.InstallRoutesPolicy(context.Background(), cp.Client); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	return cp, nil
}

// KubeconfigPath is the kubeconfig file StartControlPlane writes into dir,
// the same for every control plane a bench run starts there.
func KubeconfigPath(dir string) string { return filepath.Join(dir, "kubeconfig") }

// Stop stops kube-apiserver and etcd.
func (cp *ControlPlane) Stop() error {
	if cp == nil || cp.env == nil {
		return nil
	}
	return cp.env.Stop()
}

// ControlPlaneProcesses are the pids of kube-apiserver and etcd.
type ControlPlaneProcesses struct{ APIServer, Etcd int }

// CPUSeconds are kube-apiserver's and etcd's CPU time so far, 0 for one
// not found or no longer readable.
func (p ControlPlaneProcesses) CPUSeconds() (apiserver, etcd float64) {
	return cpuSeconds(p.APIServer), cpuSeconds(p.Etcd)
}

// Processes are the kube-apiserver and etcd StartControlPlane started,
// found once then; the error says why one was not found.
func (cp *ControlPlane) Processes() (ControlPlaneProcesses, error) { return cp.procs, cp.procsErr }

// findProcesses finds kube-apiserver and etcd among this process's
// children (envtest starts them so).
func findProcesses() (ControlPlaneProcesses, error) {
	var out ControlPlaneProcesses
	children, err := testenv.ChildProcesses(os.Getpid())
	if err != nil {
		return out, err
	}
	for _, c := range children {
		switch c.Name() {
		case "kube-apiserver":
			out.APIServer = c.PID
		case "etcd":
			out.Etcd = c.PID
		}
	}
	if out.APIServer == 0 || out.Etcd == 0 {
		return out, fmt.Errorf("control plane processes not found among this process's children: %+v", out)
	}
	return out, nil
}

func writeKubeconfig(cfg *rest.Config, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["bench"] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.CAData,
	}
	kc.AuthInfos["bench"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData,
		ClientKeyData:         cfg.KeyData,
		Token:                 cfg.BearerToken,
	}
	kc.Contexts["bench"] = &clientcmdapi.Context{Cluster: "bench", AuthInfo: "bench"}
	kc.CurrentContext = "bench"
	return clientcmd.WriteToFile(*kc, path)
}

// FreePort asks the kernel for a free TCP port on 127.0.0.1.
func FreePort() (int, error) { return freePort() }

// freePort asks the kernel for a free TCP port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(port)
}

// checkContext returns ctx's error with a word on what was interrupted.
func checkContext(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
