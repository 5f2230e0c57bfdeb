package main

import (
	"bytes"
	"io"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func streamsFor(out, errOut *bytes.Buffer) genericiooptions.IOStreams {
	return genericiooptions.IOStreams{In: io.NopCloser(&bytes.Buffer{}), Out: out, ErrOut: errOut}
}
