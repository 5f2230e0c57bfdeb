# profile-scheduler

SHELL := /usr/bin/env bash -o pipefail
.DEFAULT_GOAL := all
.SHELLFLAGS := -ec

LOCALBIN    ?= $(CURDIR)/bin
K8SBIN      ?= $(LOCALBIN)/k8s
GO          ?= go
GOTEST_FLAGS ?= -timeout 25m
TEST_PKGS   ?= ./...
# The test tooling is a module of its own (test/go.mod, as cluster-api keeps
# it): its suites and benchmarks, and their dependencies (helm, kustomize,
# plotting, upstream kube-scheduler), stay out of the operator's go.mod.
TEST_MODULE ?= test
TEST_MODULE_PKGS ?= ./...

# Versions of the control-plane binaries built from Go modules (go.mod pins them).
K8S_VERSION  := $(shell $(GO) list -m -f '{{.Version}}' k8s.io/kubernetes)
ETCD_VERSION := $(shell $(GO) list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
ENVTEST_STAMP := $(K8SBIN)/.versions-$(K8S_VERSION)-$(ETCD_VERSION)

CONTROLLER_GEN := $(GO) tool controller-gen
# golangci-lint is a Go tool of its own module (hack/tools), so its
# dependencies never move the operator's; built into bin/ once per version.
GOLANGCI_LINT_VERSION := $(shell cd hack/tools && $(GO) list -m -f '{{.Version}}' github.com/golangci/golangci-lint/v2)
GOLANGCI_LINT := $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)

-include hack/*.mk

.PHONY: all
all: build

##@ Development

.PHONY: manifests
manifests: ## Generate CRDs into config/crd/bases (and the chart's CRD templates) and RBAC from markers; copy the alerts, the dashboard and the routes program into the chart.
	$(CONTROLLER_GEN) rbac:roleName=profile-scheduler crd:allowDangerousTypes=true paths="./..." \
		output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
	@rm -rf charts/profile-scheduler/templates/crds && mkdir -p charts/profile-scheduler/templates/crds
	@for f in config/crd/bases/*.yaml; do hack/chart-crd.sh $$f > charts/profile-scheduler/templates/crds/$$(basename $$f); done
	@mkdir -p charts/profile-scheduler/files && cp config/prometheus/alerts.yaml config/grafana/profile-scheduler.json config/routes/routes_policy.yaml charts/profile-scheduler/files/

.PHONY: generate
generate: ## Generate deepcopy code.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."

.PHONY: fmt
fmt:
	$(GO) fmt ./...
	$(GO) fmt -C $(TEST_MODULE) ./...

.PHONY: vet
vet:
	$(GO) vet ./...
	$(GO) vet -C $(TEST_MODULE) ./...

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Run golangci-lint (.golangci.yml) on the operator's module and the test module.
	$(GOLANGCI_LINT) run ./...
	cd $(TEST_MODULE) && $(GOLANGCI_LINT) run --config $(CURDIR)/.golangci.yml ./...

$(GOLANGCI_LINT):
	@mkdir -p $(LOCALBIN)
	$(GO) build -C hack/tools -o $@ github.com/golangci/golangci-lint/v2/cmd/golangci-lint

# MODULES are the Go modules of the repository; each go.mod and go.sum must be
# what `go mod tidy` writes.
MODULES := . $(TEST_MODULE) hack/tools hack/promtool hack/image

.PHONY: tidy
tidy: ## Run go mod tidy in every module.
	@for dir in $(MODULES); do (cd $$dir && $(GO) mod tidy); done

.PHONY: verify-tidy
verify-tidy: ## Fail when the go.mod or go.sum of a module is not tidy.
	@for dir in $(MODULES); do \
	  if ! diff=$$(cd $$dir && $(GO) mod tidy -diff 2>&1); then \
	    echo "$$dir/go.mod or go.sum is not tidy (make tidy fixes it):"; echo "$$diff"; exit 1; \
	  fi; \
	done

.PHONY: verify-boilerplate
verify-boilerplate: ## Fail when a Go file does not start with the licence header (hack/boilerplate.go.txt).
	hack/verify-boilerplate.sh

.PHONY: verify
verify: generate manifests lint verify-tidy verify-boilerplate ## Regenerate, lint, check go.mod is tidy and licence headers, and fail on any difference.
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "not gofmt-formatted: $$unformatted"; exit 1; fi
	git diff --exit-code -- api config charts
	@untracked=$$(git ls-files --others --exclude-standard -- api config charts); \
	  if [ -n "$$untracked" ]; then echo "untracked generated files: $$untracked"; exit 1; fi

.PHONY: envtest-assets
envtest-assets: $(ENVTEST_STAMP) ## Build kube-apiserver, etcd and kubectl into bin/k8s from Go modules.

$(ENVTEST_STAMP):
	@mkdir -p $(K8SBIN)
	@echo ">> building etcd $(ETCD_VERSION), kube-apiserver and kubectl $(K8S_VERSION) into $(K8SBIN) (cold: several minutes)"
	$(GO) build -o $(K8SBIN)/etcd go.etcd.io/etcd/server/v3
	$(GO) build -o $(K8SBIN)/kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
	$(GO) build -o $(K8SBIN)/kubectl k8s.io/kubernetes/cmd/kubectl
	@rm -f $(K8SBIN)/.versions-*
	@touch $@

##@ Test

.PHONY: test
test: envtest-assets test-alerts ## Run every test: the alerting rules' (promtool), the operator's module, then the test module's suites (test/), then the scheduler's under the race detector.
	KUBEBUILDER_ASSETS=$(K8SBIN) $(GO) test $(GOTEST_FLAGS) $(TEST_PKGS)
	KUBEBUILDER_ASSETS=$(K8SBIN) $(GO) test -C $(TEST_MODULE) $(GOTEST_FLAGS) $(TEST_MODULE_PKGS)
	$(MAKE) --no-print-directory test-race

# A count of executions, not a duration: with a duration, Go 1.26's fuzzing
# coordinator can fail the target with a bare "context deadline exceeded" when
# a starved worker misses the deadline (go.dev/issue/75804, fixed in Go 1.27).
# 30000 runs take 15-30 s per target on two cores.
FUZZTIME ?= 30000x
# Fuzz targets, as package:Name. Their seed corpora (config/samples, the
# refusal cases of the tests, testdata/fuzz) also run in `make test`.
FUZZ_TARGETS ?= ./controllers:FuzzConvertProfile ./controllers:FuzzResolveExtender ./internal/decode:FuzzStrict

.PHONY: fuzz
fuzz: ## Run each fuzz target for FUZZTIME on top of its corpus; a crasher is kept in the package's testdata/fuzz.
	@for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t##*:}; \
	  echo ">> fuzzing $$name ($$pkg) for $(FUZZTIME)"; \
	  $(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

.PHONY: test-review-memory
test-review-memory: envtest-assets ## Measure the operator's peak RSS while it answers the largest review the schema admits, and twenty at once (a few minutes; not part of test).
	KUBEBUILDER_ASSETS=$(K8SBIN) $(GO) test -C $(TEST_MODULE) -tags reviewmemory $(GOTEST_FLAGS) ./e2e -args -ginkgo.focus='largest review' -ginkgo.v

.PHONY: test-race
test-race: envtest-assets ## Run the scheduler's tests under the race detector.
	KUBEBUILDER_ASSETS=$(K8SBIN) $(GO) test -race $(GOTEST_FLAGS) ./scheduler/...

##@ Build and run

.PHONY: build
build: build-local ## Build the operator binary (and its local-mode build), the kubectl-sp plugin, and the example binaries with out-of-tree plugins, into bin/.
	$(GO) build -o $(LOCALBIN)/profile-scheduler .
	$(GO) build -o $(LOCALBIN)/numericlabel-scheduler ./examples/numericlabel/cmd/numericlabel-scheduler
	$(GO) build -o $(LOCALBIN)/deadline-scheduler ./examples/deadline/cmd/deadline-scheduler

.PHONY: build-local
build-local: ## Build what make run runs: the local-mode binary and the kubectl-sp plugin, into bin/.
	$(GO) build -o $(LOCALBIN)/profile-scheduler-local ./cmd/profile-scheduler-local
	$(GO) build -o $(LOCALBIN)/kubectl-sp ./cmd/kubectl-sp

.PHONY: run
run: envtest-assets build-local ## Run the operator on a local control plane it starts itself (ARGS adds flags, e.g. ARGS=--feature-gates=GenericWorkload=true).
	$(LOCALBIN)/profile-scheduler-local --local $(ARGS)

.PHONY: help
help:
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*?##/ { printf "  %-16s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
