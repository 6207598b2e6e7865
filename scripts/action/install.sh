#!/usr/bin/env bash
# The steps of altbench's GitHub Action (action.yml), one subcommand each:
#
#   install.sh resolve   which version, platform, folder and URL: writes them to $GITHUB_OUTPUT
#   install.sh install   downloads the archive and its .sha256, verifies, extracts, adds bin/ to
#                        $GITHUB_PATH (nothing is downloaded when the folder holds that version)
#   install.sh run       runs `altbench $ALTBENCH_ARGS`, its words split as a shell would split
#                        quoted words, but nothing in them is executed or expanded
#
# Inputs come from the environment, never from text pasted into a script:
#   ALTBENCH_DEFAULT_VERSION (the release action.yml ships with), ALTBENCH_VERSION_INPUT,
#   ALTBENCH_ACTION_REF, ALTBENCH_DOWNLOAD_URL_INPUT, ALTBENCH_ACTION_REPOSITORY, ALTBENCH_ARGS,
#   and the runner's RUNNER_OS, RUNNER_ARCH, RUNNER_TOOL_CACHE, RUNNER_TEMP, GITHUB_OUTPUT,
#   GITHUB_PATH.
set -euo pipefail

fail() {
  # Escaped as workflow commands require, so no text in a message can start a command.
  local escaped=${1//'%'/%25}
  escaped=${escaped//$'\r'/%0D}
  escaped=${escaped//$'\n'/%0A}
  echo "::error title=altbench::$escaped"
  echo "error: $1" >&2
  exit 1
}

resolve() {
  # Set in action.yml: the release this copy of the action installs when neither `version` nor
  # a version tag as the action's ref says otherwise.
  local default_version=${ALTBENCH_DEFAULT_VERSION:?action.yml passes the version it ships with}
  local version=${ALTBENCH_VERSION_INPUT:-}
  local ref=${ALTBENCH_ACTION_REF:-}
  if [ -z "$version" ]; then
    if [[ "$ref" =~ ^v?([0-9]+\.[0-9]+\.[0-9]+)$ ]]; then
      version=${BASH_REMATCH[1]}
    else
      version=$default_version
    fi
  fi
  version=${version#v}
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]] \
    || fail "version '$version' is not a release version such as $default_version"

  local os arch
  case "${RUNNER_OS:-}" in
    Linux) os=linux ;;
    macOS) os=macos ;;
    *) fail "altbench has release archives for Linux and macOS runners, not '${RUNNER_OS:-unknown}'; use runs-on: ubuntu-latest or macos-latest" ;;
  esac
  if [ "$os" = macos ]; then
    arch=universal
  else
    case "${RUNNER_ARCH:-}" in
      X64) arch=x86_64 ;;
      ARM64) arch=aarch64 ;;
      *) fail "altbench has Linux archives for X64 and ARM64 runners, not '${RUNNER_ARCH:-unknown}'" ;;
    esac
  fi

  local base=${ALTBENCH_DOWNLOAD_URL_INPUT:-}
  if [ -z "$base" ]; then
    local repository=${ALTBENCH_ACTION_REPOSITORY:-altbench/altbench}
    base="https://github.com/$repository/releases/download"
  fi
  base=${base%/}
  [[ "$base" =~ ^https?://[^[:space:]]+$ ]] || fail "download-url '$base' is not an http(s) URL"

  local cache=${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}
  local name="altbench-$version-$os-$arch"
  {
    echo "version=$version"
    echo "platform=$os-$arch"
    echo "name=$name"
    echo "dir=$cache/altbench/$version/$os-$arch"
    echo "url=$base/v$version/$name.tar.gz"
  } >> "$GITHUB_OUTPUT"
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

install_release() {
  local version=${ALTBENCH_VERSION:?} dir=${ALTBENCH_DIR:?} url=${ALTBENCH_URL:?} name=${ALTBENCH_NAME:?}
  # What an install restored by actions/cache (or left by an earlier job) says it is: "0.1.0 (…)".
  local present=""
  if [ -x "$dir/bin/altbench" ]; then present=$("$dir/bin/altbench" --version 2>/dev/null || true); fi
  if [[ "$present" == "$version "* ]]; then
    echo "altbench $version is installed in $dir (cached)"
  else
    # Global, for the EXIT trap that removes it.
    work=$(mktemp -d "${RUNNER_TEMP:-/tmp}/altbench-download.XXXXXX")
    trap 'rm -rf "${work:-}"' EXIT
    echo "Downloading $url"
    curl --fail --silent --show-error --location --retry 3 --retry-delay 2 --connect-timeout 20 \
      --output "$work/$name.tar.gz" "$url" \
      || fail "cannot download $url: is altbench $version released for this platform? (version input, or download-url for a mirror)"
    curl --fail --silent --show-error --location --retry 3 --retry-delay 2 --connect-timeout 20 \
      --output "$work/$name.tar.gz.sha256" "$url.sha256" \
      || fail "cannot download $url.sha256, the archive's checksum; nothing was installed"
    local expected actual
    expected=$(cut -d' ' -f1 < "$work/$name.tar.gz.sha256" | tr -d '\r\n')
    [[ "$expected" =~ ^[0-9a-f]{64}$ ]] || fail "$name.tar.gz.sha256 holds no SHA-256; nothing was installed"
    actual=$(sha256_of "$work/$name.tar.gz")
    [ "$expected" = "$actual" ] \
      || fail "$name.tar.gz does not match its checksum (expected $expected, got $actual): the download is corrupt or was altered; nothing was installed"
    mkdir -p "$work/extracted"
    tar -xzf "$work/$name.tar.gz" -C "$work/extracted" || fail "$name.tar.gz cannot be extracted"
    [ -x "$work/extracted/$name/bin/altbench" ] || fail "$name.tar.gz holds no $name/bin/altbench"
    rm -rf "$dir"
    mkdir -p "$(dirname "$dir")"
    mv "$work/extracted/$name" "$dir"
  fi
  local reported
  reported=$("$dir/bin/altbench" --version) || fail "$dir/bin/altbench does not run on this runner"
  echo "altbench $reported"
  echo "$dir/bin" >> "$GITHUB_PATH"
  {
    echo "path=$dir"
    echo "version=$version"
  } >> "$GITHUB_OUTPUT"
}

run() {
  local words=() word parsed
  if [[ -z "${ALTBENCH_ARGS//[[:space:]]/}" ]]; then
    echo "args is blank: altbench is installed, nothing to run"
    return 0
  fi
  parsed=$(mktemp "${RUNNER_TEMP:-/tmp}/altbench-args.XXXXXX")
  # xargs splits words by the shell's quoting rules and runs nothing but printf.
  printf '%s' "${ALTBENCH_ARGS:-}" | xargs printf '%s\0' > "$parsed" \
    || fail "args cannot be split into words (an unmatched quote?): ${ALTBENCH_ARGS:-}"
  while IFS= read -r -d '' word; do words+=("$word"); done < "$parsed"
  rm -f "$parsed"
  local binary=${ALTBENCH_DIR:+$ALTBENCH_DIR/bin/}altbench
  exec "$binary" ${words[@]+"${words[@]}"}
}

case "${1:-}" in
  resolve) resolve ;;
  install) install_release ;;
  run) run ;;
  *) echo "usage: install.sh resolve|install|run" >&2; exit 64 ;;
esac
