#!/usr/bin/env bash
# Install skillgate for this runner: the release binary for its platform, verified against
# the sha256 in action/checksums.txt; when the manifest has no binary for the platform, a
# build of the action's own source with `cargo install --locked`. A binary whose checksum
# does not match is refused, never run and never replaced by a build.
#
# Environment (all optional): SKILLGATE_VERSION (default: the version in the action's
# Cargo.toml), SKILLGATE_CHECKSUMS (the manifest), SKILLGATE_DOWNLOAD_URL (where the release
# archives are), SKILLGATE_INSTALL_DIR (where the binary goes), RUNNER_OS and RUNNER_ARCH (set
# by GitHub Actions), GITHUB_PATH (the binary's folder is appended to it).
set -euo pipefail

action_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source_version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$action_dir/Cargo.toml" | head -n 1)"
version="${SKILLGATE_VERSION:-}"
version="${version#v}"
[ -n "$version" ] || version="$source_version"
manifest="${SKILLGATE_CHECKSUMS:-$action_dir/action/checksums.txt}"
base_url="${SKILLGATE_DOWNLOAD_URL:-${GITHUB_SERVER_URL:-https://github.com}/${ACTION_REPOSITORY:-skillgate/skillgate}/releases/download/v$version}"
install_dir="${SKILLGATE_INSTALL_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/skillgate/bin}"

fail() {
  echo "::error title=skillgate install::$1" >&2
  exit 1
}

# The Rust target triple of this runner.
os="${RUNNER_OS:-$(uname -s)}"
arch="${RUNNER_ARCH:-$(uname -m)}"
case "$os" in
  Linux) os_part="unknown-linux-gnu" ;;
  macOS | Darwin) os_part="apple-darwin" ;;
  Windows | MINGW* | MSYS*) os_part="pc-windows-msvc" ;;
  *) os_part="" ;;
esac
case "$arch" in
  X64 | x86_64 | amd64) arch_part="x86_64" ;;
  ARM64 | aarch64 | arm64) arch_part="aarch64" ;;
  *) arch_part="" ;;
esac
target="$arch_part-$os_part"
asset="skillgate-$version-$target.tar.gz"

expected=""
if [ -n "$os_part" ] && [ -n "$arch_part" ] && [ -f "$manifest" ]; then
  # Lines as sha256sum writes them: "<64 hex digits>  <file name>".
  expected="$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1; exit }' "$manifest")"
fi

mkdir -p "$install_dir"
if [ -n "$expected" ]; then
  echo "skillgate: installing the release binary $asset"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  curl --fail --silent --show-error --location --retry 3 --output "$work/$asset" "$base_url/$asset" ||
    fail "cannot download $base_url/$asset"
  if command -v sha256sum >/dev/null 2>&1; then
    actual="$(sha256sum "$work/$asset" | cut -d ' ' -f 1)"
  else
    actual="$(shasum -a 256 "$work/$asset" | cut -d ' ' -f 1)"
  fi
  if [ "$actual" != "$expected" ]; then
    fail "checksum mismatch for $asset: expected $expected from $(basename "$manifest"), got $actual; refusing to install it"
  fi
  tar -xzf "$work/$asset" -C "$work"
  binary="$(find "$work" -type f \( -name skillgate -o -name skillgate.exe \) | head -n 1)"
  [ -n "$binary" ] || fail "$asset holds no skillgate binary"
  cp "$binary" "$install_dir/"
  chmod +x "$install_dir/$(basename "$binary")"
else
  if [ "$version" != "$source_version" ]; then
    fail "no release binary of skillgate $version for $target in $(basename "$manifest"), and the action's source is version $source_version; use a version the manifest lists or leave 'version' empty to build the source"
  fi
  echo "skillgate: no release binary for $target in the manifest; building $version from the action's source"
  command -v cargo >/dev/null 2>&1 || fail "cargo is not installed; set up Rust (rustup) before this action, or use a version with a release binary for $target"
  cargo install --locked --quiet --path "$action_dir" --root "$(dirname "$install_dir")"
fi

if [ -n "${GITHUB_PATH:-}" ]; then
  echo "$install_dir" >>"$GITHUB_PATH"
fi
installed="$("$install_dir/skillgate" --version)"
echo "$installed"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "version=${installed##* }" >>"$GITHUB_OUTPUT"
fi
