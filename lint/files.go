/*
Copyright 2026 The profile-scheduler Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package lint

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Document is one YAML or JSON document of a manifest file.
type Document struct {
	// File is the path it was read from ("-" for standard input).
	File string
	// Index is its place in the file, from 1, among the documents the
	// YAML reader finds (two separators in a row make none).
	Index int
	// Data is the document.
	Data []byte
}

// manifestExt are the file extensions read from a directory.
var manifestExt = []string{".yaml", ".yml", ".json"}

// ReadPaths reads the documents of files, of directories (their files
// ending in .yaml, .yml or .json, recursively, in lexical order) and of
// standard input ("-", read from stdin).
func ReadPaths(stdin io.Reader, paths ...string) ([]Document, error) {
	var docs []Document
	for _, p := range paths {
		if p == "-" {
			d, err := readDocuments("-", stdin)
			if err != nil {
				return nil, err
			}
			docs = append(docs, d...)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		files := []string{p}
		if info.IsDir() {
			files = nil
			err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if !d.IsDir() && slices.Contains(manifestExt, strings.ToLower(filepath.Ext(path))) {
					files = append(files, path)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("%s: no file ending in %s", p, strings.Join(manifestExt, ", "))
			}
		}
		for _, f := range files {
			r, err := os.Open(f)
			if err != nil {
				return nil, err
			}
			d, err := readDocuments(f, r)
			_ = r.Close() // read only
			if err != nil {
				return nil, err
			}
			docs = append(docs, d...)
		}
	}
	return docs, nil
}

// readDocuments splits a YAML stream (or one JSON document) into
// documents, keeping the empty ones out but counting them.
func readDocuments(name string, r io.Reader) ([]Document, error) {
	yr := utilyaml.NewYAMLReader(bufio.NewReader(r))
	var docs []Document
	for i := 1; ; i++ {
		data, err := yr.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, i, err)
		}
		if len(bytes.TrimSpace(stripComments(data))) == 0 {
			continue
		}
		docs = append(docs, Document{File: name, Index: i, Data: data})
	}
}

// stripComments drops the lines that are only a YAML comment, to tell an
// empty document.
func stripComments(data []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' || string(t) == "---" {
			continue
		}
		out = append(out, line)
	}
	return bytes.Join(out, []byte("\n"))
}
