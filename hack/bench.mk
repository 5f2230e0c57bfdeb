# Benchmark targets: upstream kube-scheduler and profile-scheduler side by
# side (test/perf). Included by the Makefile; `make bench` works on a fresh
# clone and builds what is missing.
#
#   make bench                          every case, default sizes, three runs each
#   make bench-small                    quick run: small sizes, one run per case
#   make bench BENCH_SCALE=scale        scheduler_perf's 5000-node sizes (about 3 h, an estimate)
#   make bench BENCH_CASES=basic,swap   some cases only
#   make bench BENCH_CASES=gang         pod groups (GenericWorkload on for that case)
#   make bench BENCH_SCHEDULERS=upstream
#   make bench BENCH_SET="basic.nodes=1000 swap.updates=100"
#   make bench BENCH_REPEAT=1           one run per case (the default is 3: medians)
#   make bench BENCH_MODES=throughput   only the throughput runs (or latency)
#   make bench BENCH_FLAGS="-qps 2000 -burst 2000"
#   make bench BENCH_TRACE=cpu,heap,gc  an investigation's traces: perf CPU and heap profiles of the
#                                       schedulers, GC traces of them, kube-apiserver and etcd
#
# Results go to bench/results/<timestamp>/ (report.md, report.json,
# swap.svg, rollout.svg, logs of every scheduler process).

# Keep the Makefile's default goal: these targets are not it.
_bench_default_goal := $(.DEFAULT_GOAL)

BENCH_SCALE      ?= default
BENCH_CASES      ?=
BENCH_SCHEDULERS ?= upstream,ours
BENCH_SET        ?=
BENCH_OURS_ARGS  ?=
BENCH_REPEAT     ?= 3
BENCH_MODES      ?=
BENCH_OUT        ?= bench/results
BENCH_TRACE      ?=
BENCH_FLAGS      ?=
BENCH_BIN        ?= $(LOCALBIN)/perf-bench
KUBE_SCHEDULER   ?= $(LOCALBIN)/kube-scheduler
KUBE_SCHEDULER_STAMP := $(LOCALBIN)/.kube-scheduler-$(K8S_VERSION)

.PHONY: bench
bench: envtest-assets bench-kube-scheduler $(if $(findstring ours,$(BENCH_SCHEDULERS)),build) ## Benchmark profile-scheduler against kube-scheduler (BENCH_SCALE=small: quick; scale: 5000 nodes).
	$(GO) build -C $(TEST_MODULE) -o $(BENCH_BIN) ./perf/cmd/bench
	KUBEBUILDER_ASSETS=$(K8SBIN) BENCH_SCALE="$(BENCH_SCALE)" BENCH_CASES="$(BENCH_CASES)" \
	  BENCH_SCHEDULERS="$(BENCH_SCHEDULERS)" BENCH_SET="$(BENCH_SET)" BENCH_OURS_ARGS="$(BENCH_OURS_ARGS)" BENCH_REPEAT="$(BENCH_REPEAT)" BENCH_MODES="$(BENCH_MODES)" BENCH_TRACE="$(BENCH_TRACE)" \
	  $(BENCH_BIN) -out $(BENCH_OUT) -kube-scheduler $(KUBE_SCHEDULER) -profile-scheduler $(LOCALBIN)/profile-scheduler $(BENCH_FLAGS)

.PHONY: bench-small
bench-small: ## Quick benchmark run (BENCH_SCALE=small).
	$(MAKE) bench BENCH_SCALE=small BENCH_REPEAT=1

.PHONY: bench-kube-scheduler
bench-kube-scheduler: $(KUBE_SCHEDULER_STAMP) ## Build upstream kube-scheduler (a tool of test/go.mod) into bin/.

$(KUBE_SCHEDULER_STAMP):
	@mkdir -p $(LOCALBIN)
	@echo ">> building kube-scheduler $(K8S_VERSION) into $(KUBE_SCHEDULER)"
	$(GO) build -C $(TEST_MODULE) -o $(KUBE_SCHEDULER) k8s.io/kubernetes/cmd/kube-scheduler
	@rm -f $(LOCALBIN)/.kube-scheduler-*
	@touch $@

.PHONY: test-perf
test-perf: ## Unit tests of the benchmark's pure parts (statistics, workloads).
	$(GO) test -C $(TEST_MODULE) ./perf/...

.DEFAULT_GOAL := $(_bench_default_goal)
