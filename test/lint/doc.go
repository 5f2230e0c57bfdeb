// Package lint holds checks of the source tree that golangci-lint has no
// rule for. Today: log messages are written the way Kubernetes writes them
// (structured, and starting with a capital letter), the rule logcheck
// enforces upstream. It has no code outside its tests.
package lint
