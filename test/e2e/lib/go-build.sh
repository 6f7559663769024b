# Sourced by test/e2e/build-*.sh: one Go binary built once into the cache, never twice at once.
#   go_build_cached TOOL NAME OUT MODULE-DIR PACKAGE LDFLAGS WHAT
# TOOL names the script in messages; OUT is the binary's path in its cache folder; WHAT is said
# when the build starts (what is built and how long a first build takes). A binary already at OUT
# is kept. A build of the same OUT that another process has started is waited for (flock on a
# lock file beside it), not raced. One line when the build starts and one when it is done, with
# the time taken and the modules fetched: go's own "go: downloading" lines (hundreds on a first
# build) are counted, not printed.
go_build_cached() {
  local tool=$1 name=$2 out=$3 dir=$4 pkg=$5 ldflags=$6 what=$7 lock
  [[ -x "$out" ]] && return 0
  mkdir -p "$(dirname "$out")"
  exec {lock}>"$(dirname "$out")/.$name.lock"
  if ! flock -n "$lock"; then
    echo "$tool: waiting for another process's build of $name …" >&2
    flock "$lock"
  fi
  if [[ -x "$out" ]]; then exec {lock}>&-; return 0; fi
  local start=$SECONDS log="$(dirname "$out")/.$name.log" fetched
  echo "$tool: building $name ($what) …" >&2
  if ! (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $ldflags" -o "$out.tmp" "$pkg") 2>"$log"; then
    grep -v '^go: downloading ' "$log" >&2 || true
    echo "$tool: building $name failed after $((SECONDS - start)) s" >&2
    exit 1
  fi
  fetched=$(grep -c '^go: downloading ' "$log" || true)
  grep -v '^go: downloading ' "$log" >&2 || true
  rm -f "$log"
  mv "$out.tmp" "$out"
  echo "$tool: $name built in $((SECONDS - start)) s (modules downloaded: $fetched)" >&2
  exec {lock}>&-
}

# go_need TOOL WHY: stops with exit 2 and says why when Go is missing.
go_need() {
  export PATH="/usr/local/go/bin:$PATH"
  command -v go >/dev/null || { echo "$1: Go is needed (1.26, /usr/local/go): $2" >&2; exit 2; }
}

# go_mod_version GO.MOD MODULE: the version GO.MOD requires of MODULE (one-line or block form).
go_mod_version() {
  awk -v m="$2" '$1 == m || ($1 == "require" && $2 == m) { print ($1 == "require" ? $3 : $2); exit }' "$1"
}

# go_source_hash DIR: 12 hex digits over the program's sources and module graph, for a cache key;
# a changed main.go or go.sum builds anew.
go_source_hash() {
  cat "$1"/*.go "$1/go.mod" "$1/go.sum" | sha256sum | cut -c1-12
}
