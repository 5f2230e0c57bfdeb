// Package v1alpha1 contains the API of profile-scheduler: SchedulerProfile,
// ExtenderConfig, SchedulingReview and ProfileRoute, group scheduling.profilescheduler.io,
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
	// kubebuilder's layout: types register through init functions in their
	// files, which scheme.Builder serves.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion} //nolint:staticcheck // SA1019: kubebuilder's API layout

	// AddToScheme adds the types of this API to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
