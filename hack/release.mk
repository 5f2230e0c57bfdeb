# Release artifacts, included by the Makefile: the operator's image, the
# packaged chart, kubectl-sp binaries and the krew manifest. Nothing needs a
# container engine or a registry: everything is built from Go modules, and
# nothing is pushed unless PUSH=1.

DIST ?= $(LOCALBIN)/dist
# VERSION is the chart's appVersion (charts/profile-scheduler/Chart.yaml):
# one place for the chart's version and appVersion, the image's tag and
# the binaries' version.
VERSION ?= $(shell sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$$/\1/p' $(CHART_DIR)/Chart.yaml)
IMAGE_REPO ?= ghcr.io/profile-scheduler/profile-scheduler
IMAGE ?= $(IMAGE_REPO):$(VERSION)
IMAGE_PLATFORMS ?= linux/amd64,linux/arm64
# MAIN is the main package of the image: the operator, or a binary with
# out-of-tree plugins (MAIN=./examples/numericlabel/cmd/numericlabel-scheduler).
MAIN ?= .
PUSH ?=
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
KUBECTL_SP_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
# The image builder is a module of its own (hack/image), so that
# go-containerregistry never reaches the operator's go.mod.
IMAGE_BUILDER := $(LOCALBIN)/image-builder

##@ Release

$(IMAGE_BUILDER): hack/image/main.go hack/image/go.mod hack/image/go.sum
	@mkdir -p $(LOCALBIN)
	$(GO) build -C hack/image -o $@ .

.PHONY: image-builder
image-builder: $(IMAGE_BUILDER)

.PHONY: image
image: $(IMAGE_BUILDER) ## Build the image IMAGE for IMAGE_PLATFORMS, non-root, with SPDX SBOMs, into $(DIST)/image (an OCI layout); PUSH=1 pushes it.
	$(IMAGE_BUILDER) -C $(CURDIR) -main $(MAIN) -tag $(IMAGE) -version $(VERSION) -revision "$(REVISION)" \
		-platforms $(IMAGE_PLATFORMS) -oci $(DIST)/image $(if $(PUSH),-push)

.PHONY: image-ref
image-ref: ## Print the reference make image tags.
	@echo $(IMAGE)

.PHONY: chart
chart: helm ## Package the chart into $(DIST), its version and appVersion VERSION.
	@mkdir -p $(DIST)
	$(HELM) package $(CHART_DIR) --version $(VERSION) --app-version $(VERSION) -d $(DIST)

.PHONY: kubectl-sp-release
kubectl-sp-release: ## Build kubectl-sp for KUBECTL_SP_PLATFORMS into $(DIST) (.tar.gz with LICENSE), with checksums and the krew manifest.
	hack/kubectl-sp-release.sh "$(DIST)" "$(VERSION)" "$(REVISION)" $(KUBECTL_SP_PLATFORMS)

.PHONY: release
release: image chart kubectl-sp-release ## The image, the chart and kubectl-sp's archives and krew manifest, into $(DIST).
