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

package operator

// The permissions of the whole operator, from which config/rbac/role.yaml
// is generated (make manifests). The chart's ClusterRole and its README
// table list the same rules with the reason for each; test/chart checks that
// the three agree. The scheduler's rules are upstream system:kube-scheduler's
// and system:volume-scheduler's, less what the operator does not do.

// Profiles and extenders.
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=schedulerprofiles;extenderconfigs,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=schedulerprofiles/status;extenderconfigs/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=schedulerprofiles/finalizers;extenderconfigs/finalizers,verbs=update

// Profile routes: their status and finalizer, the RoutingTable that
// carries them (the parameter of the routes program, which the
// installer creates: the operator holds no right on admission policies
// or their bindings; the chart names the table <fullname>-routes), and
// dry-run probe pods in the operator's own namespace that show whether
// kube-apiserver runs the table (a Role of their own,
// config/rbac/route_probe_role.yaml, not generated here).
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=profileroutes,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=profileroutes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=profileroutes/finalizers,verbs=update
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=routingtables,verbs=get;list;watch;create;update;patch

// Extender TLS material: Secrets of the operator's own namespace only (a
// namespaced Role; "system" is the namespace config/default replaces).
// +kubebuilder:rbac:groups="",namespace=system,resources=secrets,verbs=get;list;watch

// Scheduling reviews: answered in status, deleted after their TTL.
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=schedulingreviews,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=scheduling.profilescheduler.io,resources=schedulingreviews/status,verbs=get;update;patch

// Scheduling: pods, their binding and status, preemption, nodes, events.
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups="",resources=pods/status,verbs=patch;update
// +kubebuilder:rbac:groups="",resources=pods/binding,verbs=create
// +kubebuilder:rbac:groups="",resources=pods/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch;update

// What the in-tree plugins watch.
// +kubebuilder:rbac:groups="",resources=namespaces;services;replicationcontrollers,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=persistentvolumes;persistentvolumeclaims,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=apps,resources=replicasets;statefulsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses;csinodes;csidrivers;csistoragecapacities;volumeattachments,verbs=get;list;watch
// +kubebuilder:rbac:groups=resource.k8s.io,resources=deviceclasses;resourceslices;devicetaintrules,verbs=get;list;watch
// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceclaims,verbs=get;list;watch;update;patch;create;delete
// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceclaims/status,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=resource.k8s.io,resources=resourceclaims/binding,verbs=update;patch

// Pod groups (the GenericWorkload gate), as upstream's system:kube-scheduler.
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=podgroups,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=podgroups/status,verbs=patch;update

// The webhook's own configuration (caBundle of a self-signed CA).
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations,verbs=get;list;watch
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations,resourceNames=profile-scheduler-validating-webhook,verbs=update;patch

// Authentication and authorization of /metrics scrapes.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
