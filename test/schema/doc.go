// Package schema proves the generated CRDs on a real API server: the samples
// are accepted, and each invalid input is refused with a message that names
// the field at fault.
package schema
