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
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// valueSets are the configurations lint and template must accept.
var valueSets = map[string][]string{
	"defaults":                              nil,
	"servicemonitor and samples":            {"--set", "serviceMonitor.enabled=true,serviceMonitor.insecureSkipVerify=true,samples.enabled=true"},
	"servicemonitor verifying a CA":         {"--set", "serviceMonitor.enabled=true,serviceMonitor.tlsConfig.ca.secret.name=metrics-ca,serviceMonitor.tlsConfig.ca.secret.key=ca.crt"},
	"alerts and dashboard":                  {"--set", "prometheusRule.enabled=true,grafanaDashboard.enabled=true"},
	"webhook with its own certificate":      {"--set", "webhook.selfSigned=false,webhook.certSecret=profile-scheduler-webhook-tls,webhook.caBundle=Zm9v"},
	"webhook certificate from cert-manager": {"--set", "webhook.certManager.enabled=true"},
	"webhook fails closed":                  {"--set", "webhook.failurePolicy=Fail"},
	"single replica without election":       {"--set", "replicaCount=1,leaderElection.enabled=false"},
	"plain http metrics":                    {"--set", "metrics.secure=false,serviceMonitor.enabled=true"},
	"no webhook, existing account":          {"--set", "webhook.enabled=false,serviceAccount.create=false,serviceAccount.name=scheduler"},
	"scheduler knobs": {"--set", "scheduler.featureGates=SchedulerAsyncPreemption=true,scheduler.parallelism=32," +
		"scheduler.kubeAPIQPS=100,scheduler.kubeAPIBurst=200,scheduler.podInitialBackoff=2s," +
		"scheduler.podMaxBackoff=20s,scheduler.allowDefaultScheduler=true,scheduler.bindCheck=false,scheduler.profileLoops=false,enableHTTP2=true,logVerbosity=4"},
	"json logs":               {"--set", "logFormat=json,logVerbosity=2"},
	"bind arbiter":            {"--set", "bindArbiter.enabled=true,bindArbiter.timeoutSeconds=2"},
	"prometheus for analysis": {"--set", "rollout.prometheus.address=http://prometheus-operated.monitoring:9090"},
	"crds managed apart":      {"--set", "crds.install=false"},
	"crds gone on uninstall":  {"--set", "crds.keep=false"},
}

func TestHelmLintAndTemplate(t *testing.T) {
	for name, set := range valueSets {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			out, err := helm(t, append([]string{"lint", "--strict", chartDir(t)}, set...)...)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(string(out)).To(ContainSubstring("0 chart(s) failed"))

			objs := renderChart(t, set...)
			g.Expect(find(objs, "Deployment", releaseName)).NotTo(BeNil())
		})
	}
}

func TestHelmTemplateRefusesBadValues(t *testing.T) {
	for name, c := range map[string]struct {
		set  string
		want string
	}{
		"unknown failure policy":            {"webhook.failurePolicy=Sometimes", "/webhook/failurePolicy': value must be one of 'Ignore', 'Fail'"},
		"misspelt value":                    {"webhok.enabled=false", "additional properties 'webhok' not allowed"},
		"duration without a unit":           {"leaderElection.leaseDuration=15", "/leaderElection/leaseDuration"},
		"own certificate without a Secret":  {"webhook.selfSigned=false", "webhook.certSecret is required"},
		"existing account without a name":   {"serviceAccount.create=false", "serviceAccount.name is required"},
		"unknown log format":                {"logFormat=xml", "/logFormat': value must be one of 'text', 'json'"},
		"servicemonitor without a service":  {"serviceMonitor.enabled=true,metrics.service.enabled=false", "serviceMonitor.enabled needs metrics.service.enabled"},
		"servicemonitor that cannot verify": {"serviceMonitor.enabled=true", "give Prometheus its CA (serviceMonitor.tlsConfig.ca or caFile, and serverName), or accept it unverified with serviceMonitor.insecureSkipVerify=true"},
		"bind arbiter without a webhook":    {"bindArbiter.enabled=true,webhook.enabled=false", "bindArbiter.enabled needs webhook.enabled"},
		"bind arbiter timeout too long":     {"bindArbiter.timeoutSeconds=60", "/bindArbiter/timeoutSeconds"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := helm(t, "template", releaseName, chartDir(t), "--namespace", namespace, "--set", c.set)
			g := NewWithT(t)
			g.Expect(err).To(HaveOccurred())
			g.Expect(err.Error()).To(ContainSubstring(c.want))
		})
	}
}

func deployment(t *testing.T, objs []*unstructured.Unstructured) *appsv1.Deployment {
	t.Helper()
	u := find(objs, "Deployment", releaseName)
	if u == nil {
		t.Fatalf("no Deployment %s in %v", releaseName, keys(objs))
	}
	var d appsv1.Deployment
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// argValue returns the value of --name=value among args, and whether the
// flag is there at all (a bare --name counts, with value "").
func argValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if a == name {
			return "", true
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// checkOperatorPod checks what the issue asks of the Deployment; the chart's
// default rendering and config/default must both pass.
func checkOperatorPod(t *testing.T, objs []*unstructured.Unstructured) {
	g := NewWithT(t)
	d := deployment(t, objs)
	g.Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)))
	pod := d.Spec.Template.Spec
	g.Expect(pod.ServiceAccountName).To(Equal("profile-scheduler"))
	g.Expect(pod.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))
	g.Expect(pod.SecurityContext.SeccompProfile).NotTo(BeNil())
	g.Expect(pod.SecurityContext.SeccompProfile.Type).To(Equal(corev1.SeccompProfileTypeRuntimeDefault))
	g.Expect(pod.Containers).To(HaveLen(1))
	c := pod.Containers[0]

	_, leader := argValue(c.Args, "--leader-elect")
	g.Expect(leader).To(BeTrue(), "--leader-elect in %v", c.Args)
	ns, _ := argValue(c.Args, "--leader-elect-namespace")
	g.Expect(ns).To(Equal("$(POD_NAMESPACE)"))
	g.Expect(c.Env).To(ContainElement(HaveField("Name", "POD_NAMESPACE")))
	format, _ := argValue(c.Args, "--logging-format")
	g.Expect(format).To(Equal("text"))
	health, _ := argValue(c.Args, "--health-probe-bind-address")
	g.Expect(health).To(Equal(":8081"))
	metrics, _ := argValue(c.Args, "--metrics-bind-address")
	g.Expect(metrics).To(Equal(":8443"))
	secure, _ := argValue(c.Args, "--metrics-secure")
	g.Expect(secure).To(Equal("true"))

	g.Expect(c.LivenessProbe.HTTPGet.Path).To(Equal("/healthz"))
	g.Expect(c.ReadinessProbe.HTTPGet.Path).To(Equal("/readyz"))
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe} {
		g.Expect(p.HTTPGet.Port).To(Equal(intstr.FromString("health")))
	}
	g.Expect(c.Ports).To(ContainElement(And(HaveField("Name", "health"), HaveField("ContainerPort", BeEquivalentTo(8081)))))
	g.Expect(c.Ports).To(ContainElement(And(HaveField("Name", "metrics"), HaveField("ContainerPort", BeEquivalentTo(8443)))))
	g.Expect(c.Ports).To(ContainElement(And(HaveField("Name", "webhook"), HaveField("ContainerPort", BeEquivalentTo(9443)))))

	g.Expect(c.Resources.Requests).To(HaveKey(corev1.ResourceCPU))
	g.Expect(c.Resources.Requests).To(HaveKey(corev1.ResourceMemory))
	g.Expect(c.Resources.Limits).To(HaveKey(corev1.ResourceCPU))
	g.Expect(c.Resources.Limits).To(HaveKey(corev1.ResourceMemory))

	sc := c.SecurityContext
	g.Expect(sc).NotTo(BeNil())
	g.Expect(sc.RunAsNonRoot).To(HaveValue(BeTrue()))
	g.Expect(sc.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
	g.Expect(sc.AllowPrivilegeEscalation).To(HaveValue(BeFalse()))
	g.Expect(sc.Capabilities.Drop).To(ConsistOf(corev1.Capability("ALL")))
	g.Expect(sc.SeccompProfile.Type).To(Equal(corev1.SeccompProfileTypeRuntimeDefault))

	// The webhook certificate directory is a writable emptyDir.
	certDir, _ := argValue(c.Args, "--webhook-cert-dir")
	g.Expect(certDir).NotTo(BeEmpty())
	g.Expect(c.VolumeMounts).To(ContainElement(And(HaveField("MountPath", certDir), HaveField("ReadOnly", BeFalse()))))
	var certVolume string
	for _, m := range c.VolumeMounts {
		if m.MountPath == certDir {
			certVolume = m.Name
		}
	}
	g.Expect(pod.Volumes).To(ContainElement(And(HaveField("Name", certVolume), HaveField("EmptyDir", Not(BeNil())))))
	selfSigned, _ := argValue(c.Args, "--webhook-self-signed")
	g.Expect(selfSigned).To(Equal("true"))

	// The webhook Service the operator is told about exists and reaches the
	// webhook port, and the webhook configuration calls it.
	svcName, _ := argValue(c.Args, "--webhook-service-name")
	svcU := find(objs, "Service", svcName)
	g.Expect(svcU).NotTo(BeNil(), "webhook Service %q", svcName)
	var svc corev1.Service
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(svcU.Object, &svc)).To(Succeed())
	g.Expect(svc.Spec.Selector).To(Equal(d.Spec.Selector.MatchLabels))
	g.Expect(svc.Spec.Ports).To(ContainElement(HaveField("TargetPort", intstr.FromString("webhook"))))

	vwcU := find(objs, "ValidatingWebhookConfiguration", "profile-scheduler-validating-webhook")
	g.Expect(vwcU).NotTo(BeNil())
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(vwcU.Object, &vwc)).To(Succeed())
	// One webhook per kind, on the paths the operator serves, both failing
	// open so that neither blocks a write (or an upgrade) while the
	// operator is away.
	g.Expect(vwc.Webhooks).To(HaveLen(2))
	for i, want := range []struct{ name, path, resource string }{
		{"vschedulerprofile.profilescheduler.io", "/validate-scheduling-profilescheduler-io-v1alpha1-schedulerprofile", "schedulerprofiles"},
		{"vextenderconfig.profilescheduler.io", "/validate-scheduling-profilescheduler-io-v1alpha1-extenderconfig", "extenderconfigs"},
	} {
		w := vwc.Webhooks[i]
		g.Expect(w.Name).To(Equal(want.name))
		g.Expect(w.FailurePolicy).To(HaveValue(Equal(admissionregistrationv1.Ignore)), w.Name)
		g.Expect(w.SideEffects).To(HaveValue(Equal(admissionregistrationv1.SideEffectClassNone)), w.Name)
		g.Expect(w.ClientConfig.Service.Name).To(Equal(svcName))
		g.Expect(w.ClientConfig.Service.Namespace).To(Equal(namespace))
		g.Expect(w.ClientConfig.Service.Path).To(HaveValue(Equal(want.path)))
		g.Expect(w.ClientConfig.Service.Port).To(HaveValue(Equal(svc.Spec.Ports[0].Port)))
		g.Expect(w.Rules).To(HaveLen(1))
		g.Expect(w.Rules[0].APIGroups).To(Equal([]string{"scheduling.profilescheduler.io"}))
		g.Expect(w.Rules[0].Resources).To(Equal([]string{want.resource}))
		g.Expect(w.Rules[0].Operations).To(ConsistOf(admissionregistrationv1.Create, admissionregistrationv1.Update))
	}

	// The metrics Service selects the pods and reaches the metrics port.
	msU := find(objs, "Service", "profile-scheduler-metrics")
	g.Expect(msU).NotTo(BeNil())
	var ms corev1.Service
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(msU.Object, &ms)).To(Succeed())
	g.Expect(ms.Spec.Selector).To(Equal(d.Spec.Selector.MatchLabels))
	g.Expect(ms.Spec.Ports).To(ContainElement(HaveField("TargetPort", intstr.FromString("metrics"))))
}

func TestChartDefaults(t *testing.T) {
	objs := renderChart(t)
	checkOperatorPod(t, objs)
	g := NewWithT(t)
	g.Expect(find(objs, "ServiceMonitor", releaseName)).To(BeNil(), "ServiceMonitor is opt-in")
	g.Expect(find(objs, "SchedulerProfile", "bin-packing")).To(BeNil(), "samples are opt-in")

	with := renderChart(t, "--set", "serviceMonitor.enabled=true,serviceMonitor.insecureSkipVerify=true,samples.enabled=true")
	sm := find(with, "ServiceMonitor", releaseName)
	g.Expect(sm).NotTo(BeNil())
	eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	g.Expect(eps).To(HaveLen(1))
	g.Expect(eps[0]).To(HaveKeyWithValue("port", "https"))
	g.Expect(eps[0]).To(HaveKeyWithValue("scheme", "https"))
	g.Expect(find(with, "SchedulerProfile", "bin-packing")).NotTo(BeNil())
	g.Expect(find(with, "SchedulerProfile", "spread")).NotTo(BeNil())

	// A scheduler's pods get the class kube-scheduler runs with, unless
	// the release says otherwise.
	g.Expect(deployment(t, objs).Spec.Template.Spec.PriorityClassName).To(Equal("system-cluster-critical"))
	g.Expect(deployment(t, renderChart(t, "--set", "priorityClassName=")).Spec.Template.Spec.PriorityClassName).To(BeEmpty())

	jsonLogs := deployment(t, renderChart(t, valueSets["json logs"]...)).Spec.Template.Spec.Containers[0].Args
	g.Expect(jsonLogs).To(ContainElements("--logging-format=json", "-v=2"))

	fail := renderChart(t, "--set", "webhook.failurePolicy=Fail")
	policy, _, _ := unstructured.NestedSlice(find(fail, "ValidatingWebhookConfiguration", "profile-scheduler-validating-webhook").Object, "webhooks")
	g.Expect(policy).To(HaveLen(2))
	for _, w := range policy {
		g.Expect(w).To(HaveKeyWithValue("failurePolicy", "Fail"))
	}

	// Every webhook gets the CA the same way: the given caBundle, or
	// cert-manager's injector (which fills every webhook of the object).
	own := find(renderChart(t, valueSets["webhook with its own certificate"]...), "ValidatingWebhookConfiguration", "profile-scheduler-validating-webhook")
	hooks, _, _ := unstructured.NestedSlice(own.Object, "webhooks")
	g.Expect(hooks).To(HaveLen(2))
	for _, w := range hooks {
		ca, _, _ := unstructured.NestedString(w.(map[string]any), "clientConfig", "caBundle")
		g.Expect(ca).To(Equal("Zm9v"))
	}
	cm := find(renderChart(t, valueSets["webhook certificate from cert-manager"]...), "ValidatingWebhookConfiguration", "profile-scheduler-validating-webhook")
	g.Expect(cm.GetAnnotations()).To(HaveKeyWithValue("cert-manager.io/inject-ca-from", namespace+"/"+releaseName+"-webhook"))
	hooks, _, _ = unstructured.NestedSlice(cm.Object, "webhooks")
	g.Expect(hooks).To(HaveLen(2))
	for _, w := range hooks {
		g.Expect(w).To(HaveKeyWithValue("clientConfig", Not(HaveKey("caBundle"))))
	}
}

// requireGeneratedRole fails with the way out when controller-gen has not
// written config/rbac/role.yaml yet: config/rbac cannot build without it.
func requireGeneratedRole(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(repoRoot(t), "config", "rbac", "role.yaml")); err != nil {
		t.Fatalf("config/rbac/role.yaml is missing (%v): it is generated by `make manifests` from the "+
			"+kubebuilder:rbac markers that grant what charts/profile-scheduler/README.md lists", err)
	}
}

func TestKustomizeMatchesChart(t *testing.T) {
	requireGeneratedRole(t)
	g := NewWithT(t)
	kust := renderKustomize(t, "default")
	checkOperatorPod(t, kust)

	// The chart does not create its namespace (helm --create-namespace does).
	var kustKeys []string
	for _, k := range keys(kust) {
		if k != "Namespace//"+namespace {
			kustKeys = append(kustKeys, k)
		}
	}
	g.Expect(kustKeys).To(HaveLen(len(kust)-1), "config/default creates namespace %s", namespace)
	chart := renderChart(t)
	g.Expect(kustKeys).To(Equal(keys(chart)))

	// Same pod template, apart from labels and the image.
	cd, kd := deployment(t, chart).Spec.Template.Spec, deployment(t, kust).Spec.Template.Spec
	cd.Containers[0].Image, kd.Containers[0].Image = "", ""
	g.Expect(kd).To(Equal(cd))

	// Same webhook, Services and rules.
	for _, kind := range []string{"ValidatingWebhookConfiguration", "Service", "ClusterRole", "Role", "RoleBinding", "ClusterRoleBinding", "PodDisruptionBudget", "ServiceAccount",
		"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"} {
		for _, c := range chart {
			if c.GetKind() != kind {
				continue
			}
			k := find(kust, kind, c.GetName())
			g.Expect(k).NotTo(BeNil())
			for _, field := range []string{"spec", "webhooks", "subjects", "roleRef", "automountServiceAccountToken"} {
				cv, inChart, _ := unstructured.NestedFieldNoCopy(c.Object, field)
				kv, inKust, _ := unstructured.NestedFieldNoCopy(k.Object, field)
				g.Expect(inKust).To(Equal(inChart), "%s %s: %s set in one only", kind, c.GetName(), field)
				if inChart {
					g.Expect(kv).To(Equal(cv), "%s %s: %s", kind, c.GetName(), field)
				}
			}
			if kind == "ClusterRole" || kind == "Role" {
				g.Expect(permissions(t, k)).To(Equal(permissions(t, c)), "%s %s", kind, c.GetName())
			}
		}
	}

	// config/prometheus is the chart's ServiceMonitor, accepting the
	// certificate unverified, and the identity it scrapes as.
	mon := renderKustomize(t, "prometheus")
	g.Expect(keys(mon)).To(ConsistOf("ClusterRoleBinding//profile-scheduler-metrics-scraper", "Secret/system/profile-scheduler-metrics-scraper-token",
		"ServiceAccount/system/profile-scheduler-metrics-scraper", "ServiceMonitor/system/profile-scheduler"))
	withMonitor := renderChart(t, "--set", "serviceMonitor.enabled=true,serviceMonitor.insecureSkipVerify=true")
	sm := find(withMonitor, "ServiceMonitor", releaseName)
	cs, _, _ := unstructured.NestedFieldNoCopy(sm.Object, "spec", "endpoints")
	ks, _, _ := unstructured.NestedFieldNoCopy(find(mon, "ServiceMonitor", "profile-scheduler").Object, "spec", "endpoints")
	g.Expect(ks).To(Equal(cs))
	for _, o := range []struct{ kind, name, field string }{
		{"ClusterRoleBinding", "profile-scheduler-metrics-scraper", "roleRef"},
		{"Secret", "profile-scheduler-metrics-scraper-token", "type"},
		{"ServiceAccount", "profile-scheduler-metrics-scraper", "automountServiceAccountToken"},
	} {
		c, k := find(withMonitor, o.kind, o.name), find(mon, o.kind, o.name)
		g.Expect(c).NotTo(BeNil(), "%s %s", o.kind, o.name)
		g.Expect(k).NotTo(BeNil(), "%s %s", o.kind, o.name)
		g.Expect(k.Object[o.field]).To(Equal(c.Object[o.field]), "%s %s: %s", o.kind, o.name, o.field)
	}
}

// The chart's CRDs are templates (so that helm upgrade updates them), made
// by `make manifests` from config/crd/bases: rendered, each is the generated
// CRD with the release's labels and, unless crds.keep=false, Helm's keep
// policy; crds.install=false renders none.
func TestChartCRDsAreTheGeneratedOnes(t *testing.T) {
	g := NewWithT(t)
	root := repoRoot(t)
	bases, err := filepath.Glob(filepath.Join(root, "config", "crd", "bases", "*.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(bases).NotTo(BeEmpty())
	_, err = os.Stat(filepath.Join(chartDir(t), "crds"))
	g.Expect(os.IsNotExist(err)).To(BeTrue(), "the chart has a crds/ directory, which helm upgrade never updates")

	crds := func(objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
		out := map[string]*unstructured.Unstructured{}
		for _, o := range objs {
			if o.GetKind() == "CustomResourceDefinition" {
				out[o.GetName()] = o
			}
		}
		return out
	}
	kept, dropped := crds(renderChart(t)), crds(renderChart(t, "--set", "crds.keep=false"))
	g.Expect(crds(renderChart(t, "--set", "crds.install=false"))).To(BeEmpty())
	g.Expect(kept).To(HaveLen(len(bases)), "one CRD per file of config/crd/bases: run `make manifests`")
	g.Expect(dropped).To(HaveLen(len(bases)))
	for _, b := range bases {
		data, err := os.ReadFile(b)
		g.Expect(err).NotTo(HaveOccurred())
		want, err := decode(data)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(want).To(HaveLen(1))
		name := want[0].GetName()
		g.Expect(kept).To(HaveKey(name), "%s is not in the chart: run `make manifests`", filepath.Base(b))

		got := kept[name].DeepCopy()
		g.Expect(got.GetAnnotations()).To(HaveKeyWithValue("helm.sh/resource-policy", "keep"))
		g.Expect(dropped[name].GetAnnotations()).NotTo(HaveKey("helm.sh/resource-policy"))
		g.Expect(got.GetLabels()).To(HaveKeyWithValue("app.kubernetes.io/instance", releaseName))
		g.Expect(got.GetLabels()).To(HaveKeyWithValue("app.kubernetes.io/part-of", "profile-scheduler"))
		annotations := got.GetAnnotations()
		delete(annotations, "helm.sh/resource-policy")
		got.SetAnnotations(annotations)
		got.SetLabels(nil)
		g.Expect(got.Object).To(Equal(want[0].Object), "%s differs from config/crd/bases: run `make manifests`", filepath.Base(b))
	}
}

// The chart admits the kube-apiserver minors the embedded kube-scheduler
// supports under Kubernetes' version skew policy (kube-scheduler never
// newer than kube-apiserver), of which only go.mod's k8s.io/kubernetes
// minor is tested: not the one before, and not the one after until it is.
func TestChartKubeVersionFollowsSkewPolicy(t *testing.T) {
	g := NewWithT(t)
	v := strings.Split(strings.TrimPrefix(targetKubeVersion(t), "v"), ".")
	g.Expect(v).To(HaveLen(3))
	minor, err := strconv.Atoi(v[1])
	g.Expect(err).NotTo(HaveOccurred())
	for kube, admitted := range map[string]bool{
		fmt.Sprintf("v1.%d.0", minor-1): false,
		fmt.Sprintf("v1.%d.0", minor):   true,
		fmt.Sprintf("v1.%d.9", minor):   true,
		fmt.Sprintf("v1.%d.0", minor+1): false,
	} {
		_, err := run(t, helmTool.bin(t), "template", releaseName, chartDir(t), "--namespace", namespace, "--kube-version", kube)
		if admitted {
			g.Expect(err).NotTo(HaveOccurred(), kube)
		} else {
			g.Expect(err).To(MatchError(ContainSubstring("chart requires kubeVersion")), kube)
		}
	}
}
