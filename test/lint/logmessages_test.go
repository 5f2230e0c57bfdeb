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
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
)

// logMethods are the calls whose first string argument (after the error,
// for the Error forms) is a log message: logr.Logger's and klog's
// structured functions.
var logMethods = map[string]int{
	"Info":    0,
	"InfoS":   0,
	"Error":   1,
	"ErrorS":  1,
	"V":       -1, // a level, not a message: skipped
	"Warning": -1,
}

// TestLogMessagesStartWithACapital walks every Go file of the operator's
// module and of the test module (tests included) and checks that each log message given as a string literal
// starts with an upper-case letter, as upstream's logcheck requires
// ("Starting", "Pod bound", not "starting").
func TestLogMessagesStartWithACapital(t *testing.T) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "bin" || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			if path != root && path != filepath.Join(root, "test") {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module (hack/tools)
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			idx, ok := logMethods[sel.Sel.Name]
			if !ok || idx < 0 || len(call.Args) <= idx || !isLogger(sel.X) {
				return true
			}
			lit, ok := call.Args[idx].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			msg, err := strconv.Unquote(lit.Value)
			if err != nil || msg == "" {
				return true
			}
			checked++
			if r, _ := utf8.DecodeRuneInString(msg); unicode.IsLower(r) {
				rel, _ := filepath.Rel(root, fset.Position(lit.Pos()).Filename)
				bad = append(bad, rel+":"+strconv.Itoa(fset.Position(lit.Pos()).Line)+": "+strconv.Quote(msg))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no log message found: the walk is broken")
	}
	t.Logf("checked %d log messages", checked)
	for _, b := range bad {
		t.Errorf("log message starts with a lower-case letter: %s", b)
	}
}

// isLogger reports whether x looks like a logger: klog, a variable named
// like one (logger, log, l), or a call returning one (FromContext(ctx),
// WithValues(...), V(n), Log). Gomega's and testing's Error methods are
// not loggers.
func isLogger(x ast.Expr) bool {
	switch e := x.(type) {
	case *ast.Ident:
		switch e.Name {
		case "klog", "logger", "log", "lg", "l", "logr":
			return true
		}
		return strings.HasSuffix(e.Name, "Logger") || strings.HasSuffix(e.Name, "logger")
	case *ast.SelectorExpr:
		return e.Sel.Name == "Log" || e.Sel.Name == "logger" || e.Sel.Name == "Logger"
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
			switch sel.Sel.Name {
			case "FromContext", "WithValues", "WithName", "V", "LoggerFrom", "Background":
				return true
			}
		}
	}
	return false
}
