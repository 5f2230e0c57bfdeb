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

# kubectl-sp-release.sh DIST VERSION REVISION OS/ARCH... builds kubectl-sp
# for each platform into DIST/kubectl-sp_vVERSION_OS_ARCH.tar.gz (the
# binary and LICENSE), writes their SHA-256 sums to
# DIST/kubectl-sp_vVERSION_checksums.txt and the krew plugin manifest
# DIST/sp.yaml, whose URIs point at the release's assets on GitHub.

set -euo pipefail
cd "$(dirname "$0")/.."
dist=$1 version=v${2#v} revision=$3
shift 3
repo=https://github.com/profile-scheduler/profile-scheduler
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sums="$dist/kubectl-sp_${version}_checksums.txt"
: > "$sums"
platforms=""
for p in "$@"; do
  os=${p%/*} arch=${p#*/}
  archive="kubectl-sp_${version}_${os}_${arch}.tar.gz"
  mkdir -p "$tmp/$os-$arch"
  echo ">> kubectl-sp $version for $os/$arch"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch ${GO:-go} build -trimpath \
    -ldflags "-s -w -X main.version=$version -X main.gitCommit=$revision" \
    -o "$tmp/$os-$arch/kubectl-sp" ./cmd/kubectl-sp
  cp LICENSE "$tmp/$os-$arch/"
  tar -C "$tmp/$os-$arch" --owner=0 --group=0 --numeric-owner --mtime='1970-01-01 00:00:00Z' --sort=name \
    -cf - kubectl-sp LICENSE | gzip -n > "$dist/$archive"
  sum=$(sha256sum "$dist/$archive" | cut -d' ' -f1)
  echo "$sum  $archive" >> "$sums"
  platforms+="  - selector:
      matchLabels:
        os: $os
        arch: $arch
    uri: $repo/releases/download/$version/$archive
    sha256: $sum
    bin: kubectl-sp
"
done
cat > "$dist/sp.yaml" <<MANIFEST
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: sp
spec:
  version: $version
  homepage: $repo
  shortDescription: Explain, what-if, lint and steer profile-scheduler's profiles
  description: |
    kubectl sp asks the profile-scheduler operator where a pod would be
    scheduled and why (explain), where every pending pod would go under a
    draft profile (what-if), which ProfileRoute a new pod would get (route),
    steers progressive rollouts (rollout), and checks SchedulerProfile,
    ExtenderConfig and ProfileRoute manifests as the operator would, without
    a cluster (lint).
  platforms:
$platforms
MANIFEST
echo ">> $dist/sp.yaml, $sums"
