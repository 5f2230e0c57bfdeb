// Package report turns the benchmark's runs into the files a reader looks
// at: a Markdown table per run with the ours/upstream ratios in the last
// columns, the same figures as JSON, and an SVG chart of pods bound over
// time during the profile-swap storm. It only formats; it measures nothing.
package report
