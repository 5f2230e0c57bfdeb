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
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// reviewOptions are the flags explain and what-if share.
type reviewOptions struct {
	flags   *genericclioptions.ConfigFlags
	streams genericiooptions.IOStreams
	// print is kubectl's -o (and --show-managed-fields, --template): an
	// empty format, or "table", prints the command's table.
	print *genericclioptions.PrintFlags
	// printer prints -o's format; nil for the table.
	printer printers.ResourcePrinter
	// wide is -o wide: the table, with more columns.
	wide bool

	timeout       time.Duration
	maxNodes      int32
	file          string
	profile       string
	schedulerName string
	keep          bool
}

func (o *reviewOptions) addFlags(cmd *cobra.Command) {
	o.print = genericclioptions.NewPrintFlags("").WithTypeSetter(scheme).WithDefaultOutput(tableOutput)
	o.print.AddFlags(cmd)
	cmd.Flags().Lookup("output").Usage = fmt.Sprintf("Output format: %s (the default), %s (the table with more columns), or one of kubectl's: %s.", tableOutput, wideOutput, strings.Join(o.print.AllowedFormats(), ", "))
	cmd.Flags().DurationVar(&o.timeout, "timeout", 60*time.Second, "How long to wait for the operator's answer.")
	cmd.Flags().Int32Var(&o.maxNodes, "max-nodes", 10, "Feasible nodes listed with their scores (and node names listed per rejection reason).")
	cmd.Flags().StringVarP(&o.file, "filename", "f", "", "A draft profile to evaluate with: a SchedulerProfile manifest (or its spec); - reads stdin.")
	cmd.Flags().StringVar(&o.profile, "profile", "", "The SchedulerProfile to evaluate with (its serving generation).")
	cmd.Flags().BoolVar(&o.keep, "keep", false, "Keep the SchedulingReview instead of deleting it (it expires after 10 minutes).")
}

// tableOutput is the -o of the command's own table, wideOutput the -o of
// the same table with more columns.
const (
	tableOutput = "table"
	wideOutput  = "wide"
)

// complete takes the printer of -o: nil for the table.
func (o *reviewOptions) complete() error {
	o.printer = nil
	format := *o.print.OutputFormat
	o.wide = format == wideOutput
	if o.wide {
		return nil
	}
	// As kubectl does, --template without -o means -o go-template.
	template := o.print.TemplatePrinterFlags.TemplateArgument
	templateOnly := template != nil && *template != "" && !o.print.OutputFlagSpecified()
	if (format != tableOutput && format != "") || templateOnly {
		p, err := o.print.ToPrinter()
		if genericclioptions.IsNoCompatiblePrinterError(err) {
			return fmt.Errorf("--output must be %s, %s or one of %s, not %q", tableOutput, wideOutput, strings.Join(o.print.AllowedFormats(), ", "), format)
		}
		if err != nil {
			return fmt.Errorf("--output %s: %w", format, err)
		}
		o.printer = p
	}
	return nil
}

// validate checks the flags explain and what-if share.
func (o *reviewOptions) validate() error {
	if o.file != "" && o.profile != "" {
		return errors.New("--profile and --filename: give at most one")
	}
	if *o.print.OutputFormat == "name" && !o.keep {
		return errors.New("-o name names the review, which is deleted once answered: add --keep to keep it (it expires after 10 minutes)")
	}
	if o.maxNodes < 1 || o.maxNodes > 500 {
		return fmt.Errorf("--max-nodes must be between 1 and 500, not %d", o.maxNodes)
	}
	return nil
}

// draft reads the draft profile of -f: a SchedulerProfile manifest, whose
// schedulerName defaults to its name as a profile's does, or a bare spec.
func (o *reviewOptions) draft() (*v1alpha1.SchedulerProfileSpec, error) {
	var data []byte
	var err error
	if o.file == "-" {
		data, err = io.ReadAll(o.streams.In)
	} else {
		data, err = os.ReadFile(o.file)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the draft profile: %w", err)
	}
	var head metav1.TypeMeta
	if err := yaml.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: %w", o.file, err)
	}
	if head.Kind == "" && head.APIVersion == "" {
		spec := &v1alpha1.SchedulerProfileSpec{}
		if err := yaml.UnmarshalStrict(data, spec); err != nil {
			return nil, fmt.Errorf("%s: not a SchedulerProfile spec: %w", o.file, err)
		}
		return spec, nil
	}
	if err := checkKind(o.file, head, v1alpha1.GroupVersion.WithKind("SchedulerProfile")); err != nil {
		return nil, err
	}
	obj, gvk, err := strictCodecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.file, err)
	}
	sp, ok := obj.(*v1alpha1.SchedulerProfile)
	if !ok {
		return nil, fmt.Errorf("%s: want a SchedulerProfile (%s), got %s", o.file, v1alpha1.GroupVersion, gvk)
	}
	// As for a SchedulerProfile applied, schedulerName defaults to the
	// name.
	if sp.Spec.SchedulerName == nil && sp.Name != "" {
		sp.Spec.SchedulerName = &sp.Name
	}
	return &sp.Spec, nil
}

// ask creates a review with spec, waits for its answer, deletes it (unless
// --keep), then prints it with printTable (table output) or with -o's
// printer. The review is deleted before anything is printed, so that output
// cut short (| head, which ends the command with SIGPIPE) leaves none
// behind, and on every way out of the wait: an error, its timeout, or
// ctx cancelled by SIGINT or SIGTERM (main).
func (o *reviewOptions) ask(ctx context.Context, spec v1alpha1.SchedulingReviewSpec, prefix string, printTable func(*v1alpha1.SchedulingReview) error) error {
	cfg, err := o.flags.ToRESTConfig()
	if err != nil {
		return err
	}
	ns, _, err := o.flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
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
	err = o.wait(ctx, c, sr)
	if !o.keep {
		// Deleted even when the wait was interrupted.
		delCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if delErr := client.IgnoreNotFound(c.Delete(delCtx, sr)); delErr != nil && err == nil {
			err = fmt.Errorf("deleting SchedulingReview %s/%s: %w", ns, sr.Name, delErr)
		}
	}
	if err != nil {
		return err
	}
	if o.printer != nil {
		if err := o.printer.PrintObj(sr, o.streams.Out); err != nil {
			return err
		}
	}
	if c := meta.FindStatusCondition(sr.Status.Conditions, v1alpha1.ConditionFailed); c != nil && c.Status == metav1.ConditionTrue {
		return fmt.Errorf("the review failed: %s: %s", c.Reason, c.Message)
	}
	if o.printer == nil {
		return printTable(sr)
	}
	return nil
}

// wait polls sr until the operator answered it, for --timeout.
func (o *reviewOptions) wait(ctx context.Context, c client.Client, sr *v1alpha1.SchedulingReview) error {
	key := client.ObjectKeyFromObject(sr)
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, o.timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, key, sr); err != nil {
			return false, err
		}
		return sr.Finished(), nil
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("interrupted while waiting for SchedulingReview %s/%s", key.Namespace, key.Name)
	case wait.Interrupted(err):
		return fmt.Errorf("SchedulingReview %s/%s was not answered within %s: is profile-scheduler running, and does it lead?", key.Namespace, key.Name, o.timeout)
	}
	return err
}

// checkKind refuses a manifest of another kind, group or version than
// want, naming both: the scheme's own error ("no kind "Pod" is registered
// for version "v1" in scheme ...") names the scheme, not what was asked
// for. A manifest without apiVersion or kind is left to the decoder.
func checkKind(file string, head metav1.TypeMeta, want schema.GroupVersionKind) error {
	if head.APIVersion == "" || head.Kind == "" || schema.FromAPIVersionAndKind(head.APIVersion, head.Kind) == want {
		return nil
	}
	return fmt.Errorf("%s: want kind %s of apiVersion %s, not kind %s of apiVersion %s",
		file, want.Kind, want.GroupVersion().String(), head.Kind, head.APIVersion)
}
