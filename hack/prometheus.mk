# Prometheus targets, included by the Makefile: the alerting rules of
# config/prometheus and their promtool unit tests.

PROMTOOL ?= $(LOCALBIN)/promtool
# promtool is a Go tool of a module of its own (hack/promtool), so
# Prometheus' dependencies reach neither the operator's go.mod nor the test
# module's; built into bin/ once per version, without the service discovery
# plugins (remove_all_sd: the cloud SDKs, a fifth of its packages), which
# checking and testing rules never use.
PROMTOOL_VERSION := $(shell cd hack/promtool && $(GO) list -m -f '{{.Version}}' github.com/prometheus/prometheus)
PROMTOOL_STAMP   := $(LOCALBIN)/.promtool-$(PROMTOOL_VERSION)

##@ Alerts

.PHONY: promtool
promtool: $(PROMTOOL_STAMP) ## Build promtool from its Go module (hack/promtool pins it) into bin/, once per version.

$(PROMTOOL_STAMP):
	@mkdir -p $(LOCALBIN)
	$(GO) build -C hack/promtool -tags remove_all_sd -o $(PROMTOOL) github.com/prometheus/prometheus/cmd/promtool
	@rm -f $(LOCALBIN)/.promtool-*
	@touch $@

.PHONY: test-alerts
test-alerts: promtool ## Check the alerting rules (config/prometheus/alerts.yaml) and run their unit tests with promtool.
	$(PROMTOOL) check rules config/prometheus/alerts.yaml
	$(PROMTOOL) test rules config/prometheus/alerts_test.yaml
