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

package docs

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/profile-scheduler/profile-scheduler/internal/controlplane"
	"github.com/profile-scheduler/profile-scheduler/internal/test/testenv"
)

const (
	// startTimeout bounds a `make run` start, its profiles and routes
	// Ready included.
	startTimeout = 2 * time.Minute
	// commandTimeout bounds one command.
	commandTimeout = 90 * time.Second
	// lookAgain is how long a command that only reads is run again until
	// it prints what the page shows.
	lookAgain = 30 * time.Second
)

// readOnly are the commands run again when their output differs: they
// only read (sp's reviews are deleted once answered).
var readOnly = regexp.MustCompile(`^kubectl (get|describe|wait|sp) `)

// TestDocs runs the console blocks of the README and of docs/*.md, a page
// per session: see the package documentation.
func TestDocs(t *testing.T) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	pages := docPages(t, root)
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		assets = filepath.Join(root, "bin", "k8s")
	}
	if err := controlplane.CheckAssets(assets); err != nil {
		t.Fatalf("%v: run `make envtest-assets` (or set KUBEBUILDER_ASSETS)", err)
	}
	bin := buildBinaries(t, root)
	for _, path := range pages {
		text, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		page, err := ParsePage(string(text))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if page.Skip || len(page.Steps) == 0 {
			continue
		}
		t.Run(path, func(t *testing.T) {
			s := startSession(t, root, bin, assets, page.RunArgs)
			if os.Getenv("DOCS_TEST_FILL") != "" {
				s.filled = map[int]string{}
				defer func() {
					must(t, os.WriteFile(filepath.Join(root, path), []byte(Fill(string(text), s.filled)), 0o644))
				}()
			}
			for _, step := range page.Steps {
				if !s.check(t, path, step) {
					return
				}
			}
		})
	}
}

// docPages are README.md and the Markdown pages under docs/ (docs/perf's
// dated notes hold no commands for `make run`), or those DOCS_TEST_PAGES
// names.
func docPages(t *testing.T, root string) []string {
	if only := os.Getenv("DOCS_TEST_PAGES"); only != "" {
		return strings.Split(only, ",")
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, p := range pages {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rel)
	}
	return out
}

// buildBinaries builds what `make run` and the walkthrough run:
// profile-scheduler-local and kubectl-sp.
func buildBinaries(t *testing.T, root string) string {
	bin := t.TempDir()
	for name, pkg := range map[string]string{
		"profile-scheduler-local": "./cmd/profile-scheduler-local",
		"kubectl-sp":              "./cmd/kubectl-sp",
	} {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, name), pkg)
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return bin
}

// session is a running `make run` and a shell set up as the walkthrough
// sets it up.
type session struct {
	dir   string
	shell *exec.Cmd
	stdin *os.File
	lines chan string
	// log is the operator's output.
	log string
	seq int
	// filled collects, with DOCS_TEST_FILL, the outputs of the steps
	// whose expected output is a lone "...", by the line it starts on.
	filled map[int]string
}

// startSession makes a directory that looks like a checkout (the
// repository's files linked, bin/ holding the binaries just built and the
// control plane's), starts the operator with local mode there, waits for
// its profiles and routes to be Ready, and starts a shell.
func startSession(t *testing.T, root, bin, assets string, args []string) *session {
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if slices.Contains([]string{"bin", ".local", ".git"}, e.Name()) {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.Mkdir(filepath.Join(dir, "bin"), 0o755))
	must(t, os.Symlink(assets, filepath.Join(dir, "bin", "k8s")))
	for _, name := range []string{"profile-scheduler-local", "kubectl-sp"} {
		must(t, os.Symlink(filepath.Join(bin, name), filepath.Join(dir, "bin", name)))
	}

	s := &session{dir: dir, log: filepath.Join(dir, "operator.log"), lines: make(chan string, 1024)}
	logFile, err := os.Create(s.log)
	if err != nil {
		t.Fatal(err)
	}
	// As `make run` runs it: $(LOCALBIN)/profile-scheduler-local --local
	// $(ARGS), but on no fixed port, so that a `make run` of one's own may
	// run meanwhile.
	args = append([]string{"--local", "--metrics-bind-address=0", "--health-probe-bind-address=0"}, args...)
	if slices.Contains(args, "--enable-webhook") {
		// The webhook server on a port and a certificate of its own too.
		args = append(args, fmt.Sprintf("--webhook-port=%d", testenv.FreePort(t)), "--webhook-cert-dir="+filepath.Join(dir, ".local", "webhook-certs"))
	}
	op := exec.Command(filepath.Join(dir, "bin", "profile-scheduler-local"), args...)
	op.Dir, op.Stdout, op.Stderr = dir, logFile, logFile
	op.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := op.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = op.Wait(); _ = logFile.Close(); close(done) }()
	t.Cleanup(func() { stopOperator(t, op, done, s.log) })

	env := append(os.Environ(),
		"KUBECONFIG="+filepath.Join(dir, ".local", "kubeconfig"),
		"PATH="+filepath.Join(dir, "bin", "k8s")+":"+filepath.Join(dir, "bin")+":"+os.Getenv("PATH"),
	)
	waitReady(t, dir, env, s.log, done)

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	in, stdin, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s.stdin = stdin
	s.shell = exec.Command("bash", "--norc", "--noprofile")
	s.shell.Dir, s.shell.Env = dir, env
	s.shell.Stdin, s.shell.Stdout, s.shell.Stderr = in, w, w
	s.shell.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.shell.Start(); err != nil {
		t.Fatal(err)
	}
	_ = in.Close()
	_ = w.Close()
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = s.shell.Process.Kill()
		_ = s.shell.Wait()
	})
	return s
}

// waitReady waits until local mode is up and every profile and route it
// applied is Ready, as a person sees before typing the first command.
func waitReady(t *testing.T, dir string, env []string, log string, done <-chan struct{}) {
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case <-done:
			t.Fatalf("make run exited:\n%s", tail(log))
		default:
		}
		if data, _ := os.ReadFile(log); strings.Contains(string(data), "Local control plane is up") {
			wait := exec.Command(filepath.Join(dir, "bin", "k8s", "kubectl"), "wait", "sp,pr", "--all", "--for=condition=Ready", "--timeout=5s")
			wait.Dir, wait.Env = dir, env
			if out, err := wait.CombinedOutput(); err == nil && len(out) > 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("make run not Ready after %s:\n%s", startTimeout, tail(log))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// stopOperator stops local mode as Ctrl-C does (it stops the control
// plane it started), after a SIGCONT for a page that froze it; what is
// left after a while is killed with its process group.
func stopOperator(t *testing.T, op *exec.Cmd, done <-chan struct{}, log string) {
	_ = op.Process.Signal(syscall.SIGCONT)
	_ = op.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Errorf("make run did not stop within 30s of SIGINT")
	}
	_ = syscall.Kill(-op.Process.Pid, syscall.SIGKILL)
	if t.Failed() {
		t.Logf("make run's output (tail):\n%s", tail(log))
	}
}

// check runs step, running a command that only reads again while its
// output differs from the page's; false when the session cannot go on.
func (s *session) check(t *testing.T, path string, step Step) bool {
	deadline := time.Now().Add(lookAgain)
	for {
		out, rc, err := s.run(step.Command)
		if err != nil {
			t.Errorf("%s:%d: $ %s\n%v", path, step.Line, step.Command, err)
			return false
		}
		if Match(step.Output, out) {
			if s.filled != nil && strings.TrimSpace(step.Output) == ellipsis {
				lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
				for i, l := range lines {
					lines[i] = strings.TrimRight(l, " \t")
				}
				s.filled[step.OutputLine] = strings.Join(lines, "\n")
			}
			if os.Getenv("DOCS_TEST_SHOW") != "" {
				t.Logf("%s:%d: $ %s\n%s", path, step.Line, step.Command, out)
			}
			return true
		}
		if !readOnly.MatchString(step.Command) || time.Now().After(deadline) {
			t.Errorf("%s:%d: $ %s\nwant (normalized):\n%s\ngot (exit code %d):\n%s",
				path, step.Line, step.Command, Normalize(step.Output), rc, out)
			return true
		}
		time.Sleep(time.Second)
	}
}

// run types command in the shell and returns what it printed and its exit
// code.
func (s *session) run(command string) (string, int, error) {
	s.seq++
	sentinel := fmt.Sprintf("__docs_test_done_%d__", s.seq)
	if _, err := fmt.Fprintf(s.stdin, "%s\nprintf '\\n%s %%d\\n' $?\n", command, sentinel); err != nil {
		return "", 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	var out []string
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				return strings.Join(out, "\n"), 0, fmt.Errorf("the shell exited")
			}
			if rest, found := strings.CutPrefix(line, sentinel+" "); found {
				rc, _ := strconv.Atoi(rest)
				return strings.Join(out, "\n"), rc, nil
			}
			out = append(out, line)
		case <-ctx.Done():
			return strings.Join(out, "\n"), 0, fmt.Errorf("no answer within %s; printed so far:\n%s", commandTimeout, strings.Join(out, "\n"))
		}
	}
}

// tail is the end of a log file.
func tail(path string) string {
	data, _ := os.ReadFile(path)
	if len(data) > 6000 {
		data = data[len(data)-6000:]
	}
	return string(data)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
