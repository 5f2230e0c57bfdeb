// Command kubectl-sp is a kubectl plugin that asks profile-scheduler where a
// pod would go and why, through SchedulingReview objects:
//
//	kubectl sp explain POD [-n NS] [--profile NAME | -f draft.yaml] [-o table|yaml|json|name|jsonpath=...|go-template=...]
//	kubectl sp what-if -f draft.yaml [--scheduler-name NAME] [-o ...]
//
// Each command creates a review in the namespace, waits until the operator
// answered it, prints the answer and deletes the review. It is built on
// kubectl's cli-runtime: its connection flags (--kubeconfig, --context, -n,
// ...), its printers for -o (apiVersion and kind set from the scheme,
// managedFields hidden unless --show-managed-fields), its tab writer for the
// tables; -f is decoded strictly through the scheme (group, version and kind
// checked, an unknown field named). It exits 0 when the
// review was answered, 1 on any error (printed on stderr), including a review
// the operator could not answer.
//
// Install it with `go install github.com/profile-scheduler/profile-scheduler/cmd/kubectl-sp@latest`
// or `make build` (bin/kubectl-sp), with the binary on PATH.
package main
