package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// reviewOptions are the flags explain and what-if share.
type reviewOptions struct {
	flags   *genericclioptions.ConfigFlags
	streams genericiooptions.IOStreams

	output        string
	timeout       time.Duration
	maxNodes      int32
	file          string
	profile       string
	schedulerName string
	keep          bool
}

func (o *reviewOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&o.output, "output", "o", "table", "Output format: table, yaml or json.")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 60*time.Second, "How long to wait for the operator's answer.")
	cmd.Flags().Int32Var(&o.maxNodes, "max-nodes", 10, "Feasible nodes listed with their scores (and node names listed per rejection reason).")
	cmd.Flags().StringVarP(&o.file, "filename", "f", "", "A draft profile to evaluate with: a SchedulerProfile manifest (or its spec); - reads stdin.")
	cmd.Flags().StringVar(&o.profile, "profile", "", "The SchedulerProfile to evaluate with (its serving generation).")
	cmd.Flags().BoolVar(&o.keep, "keep", false, "Keep the SchedulingReview instead of deleting it (it expires after 10 minutes).")
}

func (o *reviewOptions) validate() error {
	switch o.output {
	case "table", "yaml", "json":
	default:
		return fmt.Errorf("--output must be table, yaml or json, not %q", o.output)
	}
	if o.file != "" && o.profile != "" {
		return errors.New("--profile and --filename: give at most one")
	}
	if o.maxNodes < 1 || o.maxNodes > 500 {
		return fmt.Errorf("--max-nodes must be between 1 and 500, not %d", o.maxNodes)
	}
	return nil
}

// draft reads the draft profile of -f: a SchedulerProfile manifest, or a
// bare spec. It returns the spec and the manifest's name.
func (o *reviewOptions) draft() (*v1alpha1.SchedulerProfileSpec, string, error) {
	var data []byte
	var err error
	if o.file == "-" {
		data, err = readAll(o.streams.In)
	} else {
		data, err = os.ReadFile(o.file)
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading the draft profile: %w", err)
	}
	var head metav1.TypeMeta
	if err := yaml.Unmarshal(data, &head); err != nil {
		return nil, "", fmt.Errorf("%s: %w", o.file, err)
	}
	if head.Kind == "" {
		spec := &v1alpha1.SchedulerProfileSpec{}
		if err := yaml.UnmarshalStrict(data, spec); err != nil {
			return nil, "", fmt.Errorf("%s: not a SchedulerProfile spec: %w", o.file, err)
		}
		return spec, "", nil
	}
	if head.Kind != "SchedulerProfile" {
		return nil, "", fmt.Errorf("%s: want a SchedulerProfile, got kind %q", o.file, head.Kind)
	}
	sp := &v1alpha1.SchedulerProfile{}
	if err := yaml.UnmarshalStrict(data, sp); err != nil {
		return nil, "", fmt.Errorf("%s: %w", o.file, err)
	}
	return &sp.Spec, sp.Name, nil
}

// run creates a review with spec, waits for its answer, prints it with
// printTable (table output) or as yaml/json, and deletes it.
func (o *reviewOptions) run(ctx context.Context, spec v1alpha1.SchedulingReviewSpec, prefix string, printTable func(*v1alpha1.SchedulingReview) error) error {
	cfg, err := o.flags.ToRESTConfig()
	if err != nil {
		return err
	}
	ns, _, err := o.flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	spec.MaxNodes = &o.maxNodes
	sr := &v1alpha1.SchedulingReview{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: prefix}, Spec: spec}
	if err := c.Create(ctx, sr); err != nil {
		return fmt.Errorf("creating a SchedulingReview: %w", err)
	}
	if !o.keep {
		defer func() {
			// Deleted even when the wait was interrupted.
			delCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_ = client.IgnoreNotFound(c.Delete(delCtx, sr))
		}()
	}
	key := client.ObjectKeyFromObject(sr)
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, o.timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, key, sr); err != nil {
			return false, err
		}
		return sr.Finished(), nil
	})
	if err != nil {
		if wait.Interrupted(err) {
			return fmt.Errorf("SchedulingReview %s/%s was not answered within %s: is profile-scheduler running, and does it lead?", ns, sr.Name, o.timeout)
		}
		return err
	}
	switch o.output {
	case "json":
		out, err := json.MarshalIndent(sr, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(o.streams.Out, string(out))
	case "yaml":
		out, err := yaml.Marshal(sr)
		if err != nil {
			return err
		}
		fmt.Fprint(o.streams.Out, string(out))
	}
	if c := meta.FindStatusCondition(sr.Status.Conditions, v1alpha1.ConditionFailed); c != nil && c.Status == metav1.ConditionTrue {
		return fmt.Errorf("the review failed: %s: %s", c.Reason, c.Message)
	}
	if o.output == "table" {
		return printTable(sr)
	}
	return nil
}
