# Build the manager binary
FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH

WORKDIR /workspace
# Copy the Go Modules manifests
COPY go.mod go.mod
COPY go.sum go.sum
# Cache deps before building and copying source so that we don't need to
# re-download as much and so that source changes don't invalidate our
# downloaded layer
RUN go mod download

# Copy the go source
COPY main.go main.go
COPY examples/ examples/
COPY api/ api/
COPY app/ app/
COPY controllers/ controllers/
COPY scheduler/ scheduler/
COPY internal/ internal/
COPY pluginargs/ pluginargs/
COPY config/ config/

# Build
# GOARCH has no default value so that the binary is built for the platform of
# the host where the command was called. For example, `make docker-build` on an
# Apple Silicon (M1) machine gives linux/arm64, on an Apple x86 machine
# linux/amd64. Leaving it empty keeps the binary matching the host the image
# is built on, while docker buildx --platform still sets TARGETARCH.
#
# MAIN is the main package to build: the operator by default, or a binary
# with out-of-tree plugins, for example
# --build-arg MAIN=./examples/numericlabel/cmd/numericlabel-scheduler.
ARG MAIN=.
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -a -o manager ${MAIN}

# Use distroless as minimal base image to package the manager binary
# Refer to https://github.com/GoogleContainerTools/distroless for more details
FROM gcr.io/distroless/static:nonroot
WORKDIR /
COPY --from=builder /workspace/manager .
USER 65532:65532

ENTRYPOINT ["/manager"]
