# Sourced, not run: `. scripts/use-node.sh && <command>` (POSIX sh, bash, zsh).
#
# Makes the Node.js release pinned in .nvmrc the first `node` on PATH for the rest of the command line,
# so the README's two commands and .ci/run work on a machine that ships another Node major. When the
# `node` on PATH already has the pinned major it is used as it is; otherwise the pinned release is
# installed once from the npm registry (package node-<os>-<arch>, which carries the official binary)
# into ${XDG_CACHE_HOME:-~/.cache}/gatehouse/ and reused afterwards. Only the npm registry is needed.
#
# The npm and pnpm launched afterwards run on that node; `npm install -g` then installs next to it
# (npm's global prefix follows the running node), so nothing system-wide changes.

gatehouse_use_node() {
  # Run from the repository root, as the README's commands are.
  [ -f .nvmrc ] || { echo "use-node: run this from the repository root (no .nvmrc here)" >&2; return 1; }
  _gh_want=$(tr -d ' \t\r\n' <.nvmrc) || return 1
  _gh_want=${_gh_want#v}
  _gh_major=${_gh_want%%.*}
  _gh_have=$(node --version 2>/dev/null || true)
  _gh_have=${_gh_have#v}
  if [ "${_gh_have%%.*}" = "$_gh_major" ]; then
    return 0
  fi
  case "$(uname -s)" in
    Linux) _gh_os=linux ;;
    Darwin) _gh_os=darwin ;;
    *) echo "use-node: no Node.js package for $(uname -s); install Node.js $_gh_want yourself" >&2; return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) _gh_arch=x64 ;;
    aarch64 | arm64) _gh_arch=arm64 ;;
    *) echo "use-node: no Node.js package for $(uname -m); install Node.js $_gh_want yourself" >&2; return 1 ;;
  esac
  _gh_pkg="node-$_gh_os-$_gh_arch"
  _gh_dir="${XDG_CACHE_HOME:-$HOME/.cache}/gatehouse/$_gh_pkg-$_gh_want"
  if [ ! -x "$_gh_dir/bin/node" ]; then
    echo "use-node: installing Node.js $_gh_want ($_gh_pkg from the npm registry; node on PATH is ${_gh_have:-none})" >&2
    _gh_tmp="$_gh_dir.tmp.$$"
    rm -rf "$_gh_tmp" && mkdir -p "$_gh_tmp" || return 1
    # npm pack checks the tarball against the registry's integrity hash.
    (cd "$_gh_tmp" && npm pack --silent "$_gh_pkg@$_gh_want" >/dev/null && tar -xzf ./*.tgz && rm -f ./*.tgz) || {
      rm -rf "$_gh_tmp"
      echo "use-node: could not install $_gh_pkg@$_gh_want" >&2
      return 1
    }
    rm -rf "$_gh_dir" && mv "$_gh_tmp/package" "$_gh_dir" && rm -rf "$_gh_tmp" || return 1
  fi
  PATH="$_gh_dir/bin:$PATH"
  # Native addons built from source must use this node's headers, not a system-wide nodedir.
  npm_config_nodedir="$_gh_dir"
  export PATH npm_config_nodedir
  hash -r 2>/dev/null || true
  [ "$(node --version)" = "v$_gh_want" ] || { echo "use-node: $_gh_dir/bin/node is not v$_gh_want" >&2; return 1; }
}

gatehouse_use_node
