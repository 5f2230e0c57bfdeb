// Package decode turns JSON that the API server stored without a schema
// (a review's pod template, a plugin's args) into a Go type, strictly, and
// names the field at fault by its path in the object: unknown fields,
// values of the wrong JSON type and values a type's own decoder refuses
// (a quantity such as "two") all come back as field errors.
//
// It never panics on input and never decodes partially into the caller's
// value: on error, into is left as it was.
package decode
