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

// Package controllers turns SchedulerProfile and ExtenderConfig objects into
// live profiles of the in-process scheduler and reports, in status, exactly
// what serves pods. It also answers SchedulingReviews, writes the
// ProfileRoutes into the routes program's RoutingTable, and serves the admission
// webhooks, the bind arbiter's among them.
//
// The SchedulerProfile reconciler converts a profile to the upstream
// config.KubeSchedulerProfile through the upstream kubescheduler.config.k8s.io
// scheme (v1 decoding with strict plugin args, defaulting, conversion to the
// internal type, upstream validation), resolves the ExtenderConfig objects it
// names (TLS material read from Secrets of one namespace only, see below),
// and applies the result to a scheduler.ProfileSet, at once or through a
// rollout (see Rollouts). A generation that is refused never replaces the
// one that serves (last known good); status says which generation serves
// and why the latest one does not. status.activeSpec keeps a copy of the
// spec of the generation that serves: after an operator restart, when the
// latest generation is refused, that spec is applied again, so the last
// known good generation keeps serving across restarts. The oldest profile
// claiming a schedulerName owns it; default-scheduler is reserved unless
// Options.AllowDefaultScheduler.
// Each refused generation is counted once per reason in
// profile_scheduler_refused_generations_total, however often it is
// reconciled (and not again by a restarted operator that finds the refusal
// in status).
//
// # Layout
//
// One concern per file, the file named for the kind it serves:
//   - schedulerprofile_controller.go: the SchedulerProfile reconciler, its
//     scope and phases; schedulerprofile_rollout.go: the rollout phase;
//     rollout_run.go: a rollout in progress in this process, its steps
//     planned once (what the scheduler serves, how status names them) and
//     its status.rollout while it runs;
//     rollout_analysis.go: a step's analysis and its verdict;
//     rollout_metrics.go: the analysis' own metrics (PromQL queries judged
//     by CEL conditions);
//     schedulerprofile_report.go: the outcome reported (status patch,
//     Refused events, metrics); schedulerprofile_status.go: its status,
//     pure functions;
//     schedulerprofile_webhook.go: its admission.
//   - convert.go, convert_paths.go, plugins.go: the conversion to upstream's
//     profile, the field paths a refusal names, the out-of-tree plugins'
//     names and args.
//   - extender.go, extender_secret.go: an ExtenderConfig made an upstream
//     extender (resolveExtender), the Secret it reads;
//     extenderconfig_controller.go, extenderconfig_status.go,
//     extenderconfig_webhook.go: its reconciler, status and admission.
//   - name_ownership.go: which object serves which schedulerName;
//     refusal_memory.go: what is remembered of refusals between
//     reconciles; startup.go: the readiness check; conditions.go:
//     setCondition, which stamps observedGeneration.
//   - schedulingreview_controller.go: the SchedulingReview reconciler; one
//     file per question (schedulingreview_pod.go, schedulingreview_podgroup.go,
//     schedulingreview_whatif.go, schedulingreview_scenario.go);
//     schedulingreview_status.go and schedulingreview_metrics.go.
//   - profileroute_controller.go, profileroute_table.go,
//     profileroute_status.go: the routes' RoutingTable (written, written
//     back, probed) and the routes' status.
//   - bindarbiter_webhook.go, bindarbiter_metrics.go: the bind arbiter's
//     admission handler for pods/binding, and its overload counter.
//   - offline.go: the phases without a cluster (package lint).
//   - setup.go, webhook_setup.go: Setup and Options, what a manager runs.
//   - metrics.go: the SchedulerProfile reconciler's own series;
//     health_metrics.go: status as metrics, at each scrape.
//
// # Reconcile
//
// Reconcile (schedulerprofile_controller.go) has the shape of cluster-api's
// reconcilers: fetch, handle deletion (reconcileDelete), then
// reconcileNormal runs named phases (claimName, resolveExtenders, convert,
// skipUnchanged, progressRollout, apply), each a func(ctx, *profileScope)
// error that decides the outcome of the generation (profileScope.refuse,
// live, or rolling out) or leaves it to the next; the first phase that
// decides ends the run. report then computes the status
// of the decided outcome (a pure function, schedulerprofile_status.go) and
// counts, announces and forgets refusals; the deferred patchStatus only
// writes status, once. Which object serves which schedulerName, and which
// profile owns a name, is name_ownership.go; what the reconciler remembers
// of refusals between reconciles (announced once, counted once, a failed
// build not tried again) is refusal_memory.go. The three reconcilers (a
// review's draft profile included) and the webhook turn a reference into an
// upstream extender through one function, resolveExtender (extender.go).
//
// This reconciler is the shape a new one copies: a scope for the object
// being reconciled, named phases run by runPhases, status computed by a
// pure function in its *_status.go (table-tested without an API server)
// and written once, from a defer.
//
// # Rollouts
//
// A generation with spec.rollout, when another generation of the object
// serves its schedulerName, does not replace it at once: the
// progressRollout phase (schedulerprofile_rollout.go) serves it as a
// candidate beside the serving generation (scheduler.Rollouts), in shadow
// (it judges the pods the serving one places and decides nothing) or as
// a canary for a share of the profile's pods, one step after the other.
// When a step's window ends (or, while it runs, at each look: lookAt),
// analyzeStep (rollout_analysis.go) has analyze compare the candidate with
// the serving generation over that window (unschedulable ratio, p99
// latency from first enqueue to bound, errors, shadow agreement, and the
// metrics of spec.rollout.analysis.metrics, PromQL queries to
// --prometheus-address judged by CEL conditions, rollout_metrics.go), and
// decideStep, beside it, gives the verdict, which act carries out: the
// window extended (too few samples), the next step, the promotion after
// the last, a hold (onFailure Pause) or a rollback. A person steers it
// with annotations (rollout-promote: a step, or at once; rollout-paused;
// rollout-abort). promote makes the candidate serve every pod; rollBack
// retires it and refuses its generation (Stalled, reason RolledBack or
// RolloutAborted) while the serving generation stays, as after any
// refusal. A rollout in progress is Reconciling (RollingOut or
// RolloutPaused) and reconciles again when its step's window ends, at
// least every 10 s.
//
// Its state lives in status.rollout (the step, its window and extensions,
// the last analysis, a bounded history): a restarted operator or a new
// leader serves the generation that served again (status.activeSpec,
// restoreServing) and resumes the rollout at the step status names, its
// window started again. A revision rolled back or aborted is not tried
// again until the spec or its ExtenderConfigs change; a newer generation
// supersedes a rollout in progress; a change of the QueueSort plugin is
// refused (QueueSortChanged), as the profile's pods wait in one queue.
// Without spec.rollout, or with no other generation serving, a generation
// goes live at once (apply).
//
// # Plugins
//
// Plugins (plugins.go) is what the controllers know of the scheduler's
// out-of-tree plugins: their names and the validators of their args. After
// upstream's conversion, checkPluginConfig refuses a pluginConfig entry that
// names a plugin in neither registry (UnknownPlugin, naming
// spec.pluginConfig[i].name: upstream would silently ignore its args) and
// out-of-tree args their validator rejects (InvalidPluginArgs).
// The typed args of out-of-tree plugins are registered in upstream's
// scheduler configuration scheme by package pluginargs, so they are
// decoded strictly and defaulted as in-tree args are. Args for a
// registered plugin that the generation does not run are accepted, as
// upstream does, and named by unusedPluginConfig in the Ready message and a
// UnusedPluginConfig Warning event.
//
// The ExtenderConfig reconciler validates an extender, builds the upstream
// HTTP extender from it to prove its TLS material loads, and writes its own
// conditions. Changes to an ExtenderConfig, or to the Secret it reads, make
// every profile that references it re-apply.
//
// # Extender Secrets
//
// As cert-manager keeps the Secrets of cluster-scoped issuers, TLS Secrets
// of the cluster-scoped ExtenderConfigs live in one namespace,
// Options.ExtenderSecretsNamespace (the operator's own). A secretRef without
// a namespace means that one; a secretRef naming another is refused with
// SecretNamespaceNotAllowed, naming spec.tlsConfig.secretRef.namespace,
// before anything is read (resolveExtender), so whoever may create an
// ExtenderConfig cannot make the operator read a Secret of kube-system or
// of a tenant. The manager should cache the Secrets of that namespace only
// (SecretsCacheByObject); the operator has RBAC for nothing more.
//
// Setup wires both reconcilers into a manager and adds the readiness check
// "schedulerprofiles": ready once every SchedulerProfile that existed when the
// operator started has been reconciled once (applied or refused), so a
// restarted operator reports ready only after it serves again what it
// served before. With Options.LeaderElection, a replica that does not lead
// is ready.
//
// Conditions follow the kstatus conventions (observedGeneration, Ready,
// Reconciling, Stalled), so kubectl wait, Flux and Argo CD read health
// without custom checks. They are computed by pure functions in the
// *_status.go files.
//
// # Admission
//
// profileValidator is a validating admission webhook for SchedulerProfile.
// It runs the same conversion and validation as the reconciler (the
// pluginConfig checks included) and builds the framework in dry-run
// (ProfileSet.Validate, out-of-tree plugins included), so an unknown plugin
// or bad plugin args fail kubectl apply at once, with the upstream error
// text; args for a plugin the profile does not run come back as warnings.
// Missing ExtenderConfigs and schedulerName conflicts are not rejected there,
// since GitOps tools apply objects in any order: the reconciler reports them.
// The reconciler stays the source of truth when the webhook is not installed.
//
// The dry-run never waits for a reconcile's Apply, which may wait up to 30 s
// for informers a new framework asked for: ProfileSet.Validate takes no lock
// that Apply holds while it waits, so admission answers within its timeout.
//
// extenderValidator, served by the same server from the same
// ValidatingWebhookConfiguration, does the same for ExtenderConfig without
// any read: it refuses a spec.tlsConfig.secretRef naming a namespace other
// than the extender-secrets namespace (extenderSecretKey, with the message
// the status gives) and whatever validateExtenderSpec refuses. A Secret that
// is missing or holds bad TLS material is left to the reconciler's status.
// Both webhooks admit an update of metadata alone, so an object created
// before they were installed can still be managed and deleted.
//
// Serving certificates come from a cert-manager-like tool when the
// deployment mounts them into the webhook's cert directory. When the
// directory holds none, Options.Webhook.SelfSigned has setupWebhook run a
// webhookcert.Rotator: a self-signed CA and serving certificate for the
// webhook Service's DNS names, renewed before they expire, the CA merged
// into the caBundle of every webhook of the named
// ValidatingWebhookConfiguration by each replica.
//
// # Scheduling reviews
//
// The SchedulingReview reconciler (SetupReviews) answers each review once:
// it resolves spec.profile to the schedulerName and generation that serve,
// or converts spec.profileSpec exactly as a SchedulerProfile's spec (same
// extender resolution, convertProfile, buildRefusal: a draft that does not
// build gets the reason a SchedulerProfile would, with its field paths under
// spec.profileSpec), runs review.Reviewer.Review, and writes the answer
// (bounded by spec.maxNodes; what-if lists the review namespace's pods only)
// with Complete or Failed, whose message names the field at fault. A finished
// review is never answered again, and is deleted ttlSecondsAfterFinished
// after it finished.
//
// # Profile routes
//
// The ProfileRoute reconciler (profileroute_controller.go) serves one
// request for all routes: internal/routing decides the routes in force,
// with the profiles that serve, in priority order, and the reconciler
// writes them, whole, into ONE RoutingTable (profileroute_table.go;
// profile-scheduler-routes, or --routes-policy-name), the parameter of the
// routes program: a MutatingAdmissionPolicy and binding of the same name,
// with a fixed CEL, which the installer creates and on which the operator
// holds no right at all. One object changes atomically, so kube-apiserver
// never runs half of a change, and "in force" is one revision: a pod
// created with dryRun=All in the operator's namespace comes back stamped
// with the table's revision kube-apiserver runs. A route is Ready only
// once, and while, that is the stored revision (routeStatus,
// profileroute_status.go, a pure function); a deleted route keeps its
// finalizer until kube-apiserver runs a table without it. Pod creation
// never depends on the operator: the program's failurePolicy is Ignore,
// and it keeps routing while the operator is down.
//
// Drift: the table is watched, and one changed or deleted by anyone else
// is written back at once (Event RoutingTableRestored). The program and
// its binding cannot be read, so the reconciler probes every few seconds:
// a probe that no longer shows the revision in force stalls every route
// at once with AdmissionPolicyNotInForce, saying what came back (Event
// RoutesNotInForce), until the installer restores them (RoutesInForce).
// A table stored but not run within 30 s (the admission plugin is off)
// stalls them too. An API server without MutatingAdmissionPolicy v1
// (discovery; before Kubernetes 1.36) stalls the routes
// (AdmissionPolicyUnavailable) and nothing else; a write of the table
// kube-apiserver refuses stalls them with RoutingTableRefused.
//
// # Offline
//
// Offline (offline.go) is the reconcilers' phases without a cluster, for
// `kubectl sp lint` (package lint): the schedulerName claim among the
// profiles given, the ExtenderConfigs (and Secrets) read through a
// client.Reader over manifests, the same Plugins.convert, and a dry-run
// build (ProfileSet.Validate), each refusal with the reason and message
// the status would give. What it cannot read it reports as unchecked
// rather than refuse.
//
// # Health as metrics
//
// health_metrics.go reports, at each scrape and on the leader only, what
// the SchedulerProfiles' and ProfileRoutes' status says, read from the
// manager's cache in kube-state-metrics' shape: each kstatus condition
// (profile_scheduler_profile_condition{profile,condition,status},
// profile_scheduler_route_condition), the schedulerName a profile claims,
// its serving and candidate generations, its rollout's phase and how long
// its loop has been stuck on one cycle. Nothing is kept between scrapes:
// a deleted object has no series at the next one. The series of the
// reconciler's own counters (metrics.go) are removed when their profile
// is deleted. schedulingreview_metrics.go counts the reviews answered and
// failed by kind, and the failures by reason.
//
// This package never builds frameworks itself outside admission dry-runs,
// Offline and reviews (through the scheduler), never writes spec, and never
// takes a schedulerName from an older profile.
package controllers
