// Package report turns the benchmark's runs into the files a reader looks
// at: a Markdown table per run with the ours/upstream ratios in the last
// columns, the same figures as JSON, and a chart of the profile-swap storm
// (SVG and PNG): the longest time without a bind after each change and
// pods bound per 100 ms around a change, every scheduler over the same
// number of changes. It only formats; it measures nothing.
//
// Layout: report.go (Report, WriteJSON, WriteMarkdown: the order of the
// sections), targets.go (the table of each case's runs), notes.go (the
// notes under a case: short steps, connection storms, a run's own),
// controlplane.go (control-plane CPU per pod), swap.go and chart.go (the
// profile-swap storm: table and chart), explain.go, gang.go, rollout.go,
// isolation.go (their sections).
package report
