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

package v1

import (
	"time"

	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	schedconfigv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"

	"github.com/profile-scheduler/profile-scheduler/examples/deadline/apis/config"
)

// AddToScheme registers DeadlineArgs as kind DeadlineArgs of
// kubescheduler.config.k8s.io/v1, with its defaults and its conversions to
// and from the internal type. The scheme must know the internal type too
// (config.AddToScheme).
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(schedconfigv1.SchemeGroupVersion, &DeadlineArgs{})
	s.AddTypeDefaultingFunc(&DeadlineArgs{}, func(o any) { SetDefaults_DeadlineArgs(o.(*DeadlineArgs)) })
	if err := s.AddConversionFunc((*DeadlineArgs)(nil), (*config.DeadlineArgs)(nil), func(a, b any, scope conversion.Scope) error {
		return Convert_v1_DeadlineArgs_To_config_DeadlineArgs(a.(*DeadlineArgs), b.(*config.DeadlineArgs), scope)
	}); err != nil {
		return err
	}
	return s.AddConversionFunc((*config.DeadlineArgs)(nil), (*DeadlineArgs)(nil), func(a, b any, scope conversion.Scope) error {
		return Convert_config_DeadlineArgs_To_v1_DeadlineArgs(a.(*config.DeadlineArgs), b.(*DeadlineArgs), scope)
	})
}

// Convert_v1_DeadlineArgs_To_config_DeadlineArgs converts the versioned
// args (seconds) to the internal ones (durations).
func Convert_v1_DeadlineArgs_To_config_DeadlineArgs(in *DeadlineArgs, out *config.DeadlineArgs, _ conversion.Scope) error { //nolint:revive // upstream's name for a conversion function
	out.DeadlineAnnotation = ptr.Deref(in.DeadlineAnnotation, "")
	out.DefaultDeadline = time.Duration(ptr.Deref(in.DefaultDeadlineSeconds, 0)) * time.Second
	out.UrgentWithin = time.Duration(ptr.Deref(in.UrgentWithinSeconds, 0)) * time.Second
	out.FastNodeLabel = ptr.Deref(in.FastNodeLabel, "")
	return nil
}

// Convert_config_DeadlineArgs_To_v1_DeadlineArgs converts the internal
// args back (status and admission print them in their versioned form).
func Convert_config_DeadlineArgs_To_v1_DeadlineArgs(in *config.DeadlineArgs, out *DeadlineArgs, _ conversion.Scope) error { //nolint:revive // upstream's name for a conversion function
	out.DeadlineAnnotation = ptr.To(in.DeadlineAnnotation)
	out.DefaultDeadlineSeconds = ptr.To(int64(in.DefaultDeadline / time.Second))
	out.UrgentWithinSeconds = ptr.To(int64(in.UrgentWithin / time.Second))
	out.FastNodeLabel = ptr.To(in.FastNodeLabel)
	return nil
}
