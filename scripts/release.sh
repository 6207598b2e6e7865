#!/usr/bin/env bash
# Builds altbench's release archive for this machine:
#   dist/altbench-<version>-<os>-<arch>.tar.gz and dist/altbench-<version>-<os>-<arch>.tar.gz.sha256
#
#   scripts/release.sh                       release build, then the archive (docs/install.md)
#   scripts/release.sh --package-only DIR    the archive of executables already built in DIR
#                                            (a SwiftPM products folder such as .build/debug), no build
#   --output DIR                             where the archive goes (default: dist)
#
# Linux builds link the Swift runtime statically (--static-swift-stdlib), so the archive needs
# only the C library and SQLite; macOS builds one universal binary (arm64 and x86_64). The
# version is AltBenchVersion.current; with ALTBENCH_RELEASE_TAG set (the release workflow
# sets it to the pushed tag) the tag must be v<version>. The last line printed is the
# archive's path.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

package_only=""
output="dist"
while [ $# -gt 0 ]; do
  case "$1" in
    --package-only)
      [ $# -ge 2 ] || { echo "error: --package-only needs the folder holding the built executables, e.g. .build/debug" >&2; exit 64; }
      package_only=$2; shift 2 ;;
    --output)
      [ $# -ge 2 ] || { echo "error: --output needs a folder" >&2; exit 64; }
      output=$2; shift 2 ;;
    -h|--help)
      sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *)
      echo "error: unknown argument '$1' (scripts/release.sh [--package-only DIR] [--output DIR])" >&2; exit 64 ;;
  esac
done

version=$(sed -n 's/^ *public static let current = "\(.*\)"$/\1/p' Sources/AltBenchCore/Support/AltBenchVersion.swift)
if [ -z "$version" ]; then
  echo "error: no version in Sources/AltBenchCore/Support/AltBenchVersion.swift (public static let current = \"X.Y.Z\")" >&2
  exit 1
fi
if [ -n "${ALTBENCH_RELEASE_TAG:-}" ] && [ "$ALTBENCH_RELEASE_TAG" != "v$version" ]; then
  echo "error: the tag $ALTBENCH_RELEASE_TAG is not v$version, the version in AltBenchVersion.swift. Tag v$version, or change the version and tag again." >&2
  exit 1
fi

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=macos ;;
  *) echo "error: no release archive for $(uname -s); build from source (docs/install.md)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64|amd64) arch=x86_64 ;;
  aarch64|arm64) arch=aarch64 ;;
  *) echo "error: no release archive for the $(uname -m) architecture; build from source (docs/install.md)" >&2; exit 1 ;;
esac

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}

# On any exit: BuildCommit.swift back as it was, the staging folder gone.
saved="" commit_file="" stage=""
cleanup() {
  if [ -n "$saved" ]; then cp "$saved" "$commit_file"; rm -f "$saved"; fi
  if [ -n "$stage" ]; then rm -rf "$stage"; fi
}
trap cleanup EXIT

if [ -n "$package_only" ]; then
  bin=$(cd "$package_only" && pwd)
else
  # The commit goes into the binary for `altbench --version`; the file is put back afterwards.
  commit_file=Sources/altbench/BuildCommit.swift
  if ! grep -q '^let buildCommit: String? = nil$' "$commit_file"; then
    echo "error: $commit_file is not as committed (an earlier release build stopped before putting it back?): restore it with 'git checkout -- $commit_file'" >&2
    exit 1
  fi
  # Only this checkout's own commit: a copy of the sources inside another repository has none.
  commit=""
  if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
    commit=$(git rev-parse HEAD 2>/dev/null || echo "")
  fi
  if [ -n "$commit" ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    commit="$commit-dirty"
  fi
  backup=$(mktemp)
  cp "$commit_file" "$backup"
  saved=$backup
  if [ -n "$commit" ]; then
    sed -i.orig "s/^let buildCommit: String? = nil$/let buildCommit: String? = \"$commit\"/" "$commit_file"
    rm -f "$commit_file.orig"
    grep -q "\"$commit\"" "$commit_file" || { echo "error: could not record the commit in $commit_file" >&2; exit 1; }
  fi

  scratch=.build-release
  if [ "$os" = macos ]; then
    arch=universal
    flags=(-c release --arch arm64 --arch x86_64 --scratch-path "$scratch")
  else
    flags=(-c release --static-swift-stdlib --scratch-path "$scratch")
  fi
  for product in altbench altbench-test-server; do
    swift build "${flags[@]}" --product "$product" >&2
  done
  bin=$(swift build "${flags[@]}" --show-bin-path)
fi

name="altbench-$version-$os-$arch"
mkdir -p "$output"
output=$(cd "$output" && pwd)
stage=$(mktemp -d)

top="$stage/$name"
mkdir -p "$top/bin" "$top/share/altbench/datasets"
for executable in altbench altbench-test-server; do
  [ -x "$bin/$executable" ] || { echo "error: $bin/$executable is missing: build it first (swift build --product $executable)" >&2; exit 1; }
  cp "$bin/$executable" "$top/bin/$executable"
done
# The test server's example bodies (SwiftPM's resource bundle, found beside the executable).
for bundle in "$bin"/altbench_AltBenchTesting.resources "$bin"/altbench_AltBenchTesting.bundle; do
  [ -d "$bundle" ] && cp -R "$bundle" "$top/bin/"
done
if [ -z "$package_only" ] && [ "$os" = linux ]; then
  strip "$top/bin/altbench" "$top/bin/altbench-test-server"
fi
cp -R datasets/sample "$top/share/altbench/datasets/sample"
cp README.md LICENSE "$top/"
# The README's links point into docs/ and examples/: they come along, so the links work.
cp -R docs examples "$top/"

tar -C "$stage" -czf "$output/$name.tar.gz" "$name"
(cd "$output" && sha256 "$name.tar.gz" > "$name.tar.gz.sha256")
echo "$output/$name.tar.gz"
