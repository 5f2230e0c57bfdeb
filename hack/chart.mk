# Chart and kustomize targets, included by the Makefile.

HELM      ?= $(LOCALBIN)/helm
KUSTOMIZE ?= $(LOCALBIN)/kustomize
CHART_DIR ?= charts/profile-scheduler
CHART_NAMESPACE ?= profile-scheduler-system
CHART_OUT ?= $(LOCALBIN)/chart

# helm and kustomize are Go tools of the test module (test/go.mod), so their
# dependencies never reach the operator's go.mod.
HELM_VERSION := $(shell cd $(TEST_MODULE) && $(GO) list -m -f '{{.Version}}' helm.sh/helm/v3)
KUSTOMIZE_VERSION := $(shell cd $(TEST_MODULE) && $(GO) list -m -f '{{.Version}}' sigs.k8s.io/kustomize/kustomize/v5)
HELM_STAMP      := $(LOCALBIN)/.helm-$(HELM_VERSION)
KUSTOMIZE_STAMP := $(LOCALBIN)/.kustomize-$(KUSTOMIZE_VERSION)
# helm's default Kubernetes version for capabilities and deprecation checks is
# set at link time, as helm's own Makefile does, to the pinned k8s minor.
K8S_MINOR := $(word 2,$(subst ., ,$(K8S_VERSION)))
HELM_LDFLAGS := -X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION) \
	-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$(K8S_MINOR) \
	-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$(K8S_MINOR)

##@ Chart

.PHONY: helm
helm: $(HELM_STAMP) ## Build helm from its Go module (test/go.mod pins it) into bin/, once per version.

$(HELM_STAMP):
	@mkdir -p $(LOCALBIN)
	$(GO) build -C $(TEST_MODULE) -ldflags '$(HELM_LDFLAGS)' -o $(HELM) helm.sh/helm/v3/cmd/helm
	@rm -f $(LOCALBIN)/.helm-*
	@touch $@

.PHONY: kustomize
kustomize: $(KUSTOMIZE_STAMP) ## Build kustomize from its Go module into bin/, once per version.

$(KUSTOMIZE_STAMP):
	@mkdir -p $(LOCALBIN)
	$(GO) build -C $(TEST_MODULE) -o $(KUSTOMIZE) sigs.k8s.io/kustomize/kustomize/v5
	@rm -f $(LOCALBIN)/.kustomize-*
	@touch $@

.PHONY: chart-lint
chart-lint: helm kustomize ## helm lint and helm template the chart, kustomize build config/default.
	$(HELM) lint --strict $(CHART_DIR)
	$(HELM) lint --strict $(CHART_DIR) --set serviceMonitor.enabled=true,serviceMonitor.insecureSkipVerify=true,samples.enabled=true,prometheusRule.enabled=true,grafanaDashboard.enabled=true
	@mkdir -p $(CHART_OUT)
	$(HELM) template profile-scheduler $(CHART_DIR) --namespace $(CHART_NAMESPACE) > $(CHART_OUT)/chart.yaml
	$(KUSTOMIZE) build config/default > $(CHART_OUT)/kustomize.yaml
	@echo "rendered into $(CHART_OUT)/chart.yaml and $(CHART_OUT)/kustomize.yaml"

.PHONY: chart-test
chart-test: envtest-assets helm kustomize ## Lint, render and apply the chart and config/default to an envtest API server.
	HELM=$(HELM) KUSTOMIZE=$(KUSTOMIZE) KUBEBUILDER_ASSETS=$(K8SBIN) $(GO) test -C $(TEST_MODULE) $(GOTEST_FLAGS) ./chart/...
