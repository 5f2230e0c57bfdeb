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

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// version and gitCommit are the release of kubectl-sp and its commit, set
// at link time (-ldflags "-X main.version=v0.2.0 -X main.gitCommit=...", as
// make release does). Without them, what Go recorded in the build info:
// the module's version (go install ...@v0.2.0), else "(devel)", and the
// commit when built with -buildvcs.
var version, gitCommit string

// operatorSelector selects the operator's Deployment, as the chart and
// config/default label it.
const operatorSelector = "app.kubernetes.io/part-of=profile-scheduler,control-plane=controller-manager"

// clientVersion is what kubectl-sp knows of its own build.
type clientVersion struct {
	Version   string `json:"version"`
	GitCommit string `json:"gitCommit,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// operatorVersion is one Deployment of the operator: its version (the
// app.kubernetes.io/version label the chart sets, else the image's tag),
// its image and its ready replicas.
type operatorVersion struct {
	Version    string `json:"version"`
	Deployment string `json:"deployment"`
	Image      string `json:"image"`
	Ready      string `json:"ready"`
}

// versionInfo is what `kubectl sp version -o yaml|json` prints.
type versionInfo struct {
	ClientVersion    clientVersion     `json:"clientVersion"`
	OperatorVersions []operatorVersion `json:"operatorVersions,omitempty"`
}

type versionOptions struct {
	flags             *genericclioptions.ConfigFlags
	streams           genericiooptions.IOStreams
	output            string
	clientOnly        bool
	operatorNamespace string
}

func newVersionCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &versionOptions{flags: flags, streams: streams}
	cmd := &cobra.Command{
		Use:   "version [--client] [-o yaml|json]",
		Short: "Print the version of kubectl sp and of the operator it talks to",
		Long: `Version prints the version of kubectl sp and, unless --client, of every
Deployment of the operator in the cluster (labelled ` + operatorSelector + `,
as the chart and config/default label it): the version the chart records
(app.kubernetes.io/version) or the image's tag, the image and the ready
replicas. A cluster without such a Deployment (make run's operator runs
outside it) says so.`,
		Example: `  kubectl sp version
  kubectl sp version --client -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd.Context())
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "Output format: empty for text, or yaml or json.")
	cmd.Flags().BoolVar(&o.clientOnly, "client", false, "Print the client's version only; the cluster is not read.")
	cmd.Flags().StringVar(&o.operatorNamespace, "operator-namespace", "", "The operator's namespace (all namespaces when empty).")
	return cmd
}

func (o *versionOptions) validate() error {
	switch o.output {
	case "", "yaml", "json":
		return nil
	}
	return fmt.Errorf("--output must be yaml or json, not %q", o.output)
}

func (o *versionOptions) run(ctx context.Context) error {
	info := versionInfo{ClientVersion: buildVersion()}
	var readErr error
	found := false
	if !o.clientOnly {
		info.OperatorVersions, readErr = o.operators(ctx)
		found = readErr == nil
	}
	if err := o.print(info, found); err != nil {
		return err
	}
	if readErr != nil {
		return fmt.Errorf("reading the operator's version: %w", readErr)
	}
	return nil
}

func (o *versionOptions) print(info versionInfo, read bool) error {
	out := o.streams.Out
	switch o.output {
	case "json":
		data, err := json.MarshalIndent(info, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%s\n", data)
		return err
	case "yaml":
		data, err := yaml.Marshal(info)
		if err != nil {
			return err
		}
		_, err = out.Write(data)
		return err
	}
	c := info.ClientVersion
	fmt.Fprintf(out, "Client Version: %s\n", c.Version)
	if !read {
		return nil
	}
	if len(info.OperatorVersions) == 0 {
		where := "any namespace"
		if o.operatorNamespace != "" {
			where = "namespace " + o.operatorNamespace
		}
		_, err := fmt.Fprintf(out, "Operator Version: unknown (no Deployment labelled %s in %s)\n", operatorSelector, where)
		return err
	}
	for _, v := range info.OperatorVersions {
		if _, err := fmt.Fprintf(out, "Operator Version: %s (deployment %s, image %s, %s ready)\n", v.Version, v.Deployment, v.Image, v.Ready); err != nil {
			return err
		}
	}
	return nil
}

// operators lists the operator's Deployments, sorted by namespace and name.
func (o *versionOptions) operators(ctx context.Context) ([]operatorVersion, error) {
	cfg, err := o.flags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("DeploymentList"))
	sel, err := labels.Parse(operatorSelector)
	if err != nil {
		return nil, err
	}
	opts := []client.ListOption{client.MatchingLabelsSelector{Selector: sel}}
	if o.operatorNamespace != "" {
		opts = append(opts, client.InNamespace(o.operatorNamespace))
	}
	if err := c.List(ctx, list, opts...); err != nil {
		return nil, err
	}
	var out []operatorVersion
	for _, u := range list.Items {
		var d appsv1.Deployment
		if err := kruntime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &d); err != nil {
			return nil, fmt.Errorf("deployment %s/%s: %w", u.GetNamespace(), u.GetName(), err)
		}
		out = append(out, deploymentVersion(&d))
	}
	slices.SortFunc(out, func(a, b operatorVersion) int { return strings.Compare(a.Deployment, b.Deployment) })
	return out, nil
}

// deploymentVersion reads the operator's version off its Deployment.
func deploymentVersion(d *appsv1.Deployment) operatorVersion {
	v := operatorVersion{Deployment: d.Namespace + "/" + d.Name}
	containers := d.Spec.Template.Spec.Containers
	if len(containers) > 0 {
		i := slices.IndexFunc(containers, func(c corev1.Container) bool { return c.Name == "manager" })
		if i < 0 {
			i = 0
		}
		v.Image = containers[i].Image
	}
	v.Version = d.Labels["app.kubernetes.io/version"]
	if v.Version == "" {
		v.Version = imageTag(v.Image)
	}
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	v.Ready = fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, want)
	return v
}

// imageTag is the tag of an image reference (registry:5000/repo:tag@digest
// gives tag), or "unknown" when it has none.
func imageTag(image string) string {
	image, _, _ = strings.Cut(image, "@")
	name := image[strings.LastIndex(image, "/")+1:]
	if _, tag, ok := strings.Cut(name, ":"); ok && tag != "" {
		return tag
	}
	return "unknown"
}

// buildVersion is kubectl-sp's own version: the link-time version, else
// the module's, with the commit Go recorded at build time.
func buildVersion() clientVersion {
	v := clientVersion{Version: version, GitCommit: gitCommit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		if v.Version == "" {
			v.Version = "(devel)"
		}
		return v
	}
	if v.Version == "" {
		v.Version = bi.Main.Version
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	if v.GitCommit != "" {
		return v
	}
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.GitCommit = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified && v.GitCommit != "" {
		v.GitCommit += "-dirty"
	}
	return v
}
