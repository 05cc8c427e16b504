# Sourced by the editor install scripts: `apt_install_missing WHAT pkg...` installs the named Debian packages when
# running as root with apt-get, else tells the user what to install and exits 1.
apt_install_missing() {
  local what=$1; shift
  [ $# -gt 0 ] || return 0
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing $* (apt)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq "$@" >/dev/null 2>&1 || \
      { apt-get update -qq >/dev/null && apt-get install -y -qq "$@" >/dev/null; }
  else
    echo "error: $what need $*: install them (e.g. sudo apt-get install $*)" >&2
    exit 1
  fi
}
