// Package v1alpha1 contains the API of profile-scheduler: SchedulerProfile,
// ExtenderConfig and SchedulingReview, group scheduling.profilescheduler.io,
// version v1alpha1.
//
// +kubebuilder:object:generate=true
// +groupName=scheduling.profilescheduler.io
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of this API.
	GroupVersion = schema.GroupVersion{Group: "scheduling.profilescheduler.io", Version: "v1alpha1"}

	// SchemeBuilder registers the types of this API with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types of this API to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
