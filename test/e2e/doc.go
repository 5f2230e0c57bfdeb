// Package e2e runs the operator binary as a person deploys it, against a
// real API server: several replicas with leader election, killed and
// replaced under load, and kube-apiserver itself killed and started again
// on the same etcd while pods arrive. The API server's audit log says who
// bound what.
//
// A failed spec carries the tail of each operator's log. To keep the whole
// work directory (logs, kubeconfigs, the audit log), set E2E_KEEP_WORKDIR=1;
// the suite prints its path.
package e2e
