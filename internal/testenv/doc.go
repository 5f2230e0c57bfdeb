// Package testenv holds the fixtures that tests and the benchmark share
// beside the control plane itself (package controlplane starts it and
// creates its nodes): pods (PausePod, CreateBound; upstream's default
// profile is scheduler.DefaultProfile), running an operator command for a test
// (RunCommand), the control-plane processes an environment started
// (ChildProcesses), the test module's root (TestModuleRoot), a free port
// for a test's server (FreePort), and a fake HTTP extender (fakeextender).
// Only tests, the test module and the benchmark import it; it never
// downloads anything.
package testenv
