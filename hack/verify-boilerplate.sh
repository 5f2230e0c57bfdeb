#!/usr/bin/env bash
# Copyright 2026 The profile-scheduler Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# verify-boilerplate.sh fails, naming them, when Go files of the repository
# (tracked, or new and not ignored) do not start with the licence header of
# hack/boilerplate.go.txt, as Kubernetes' hack/verify-boilerplate.sh checks:
# the same lines, any year, after an optional //go:build line.

set -euo pipefail
cd "$(dirname "$0")/.."

boilerplate=hack/boilerplate.go.txt
missing=()
while IFS= read -r f; do
  [ -f "$f" ] || continue
  if ! awk -v bp="$boilerplate" '
    function norm(s) { gsub(/Copyright [0-9][0-9][0-9][0-9] /, "Copyright YEAR ", s); return s }
    BEGIN { while ((getline l < bp) > 0) want[++n] = norm(l); i = 0; started = 0 }
    !started && (/^\/\/go:build / || /^$/) { next }
    { started = 1; i++; if (norm($0) != want[i]) exit 1; if (i == n) { ok = 1; exit 0 } }
    END { exit ok ? 0 : 1 }
  ' "$f"; then
    missing+=("$f")
  fi
done < <(git ls-files --cached --others --exclude-standard -- '*.go')

if [ ${#missing[@]} -gt 0 ]; then
  echo "Go files without the licence header of $boilerplate (put it on top, then a blank line):"
  printf '  %s\n' "${missing[@]}"
  exit 1
fi
