# Sourced by test/e2e/run.sh and replay.sh: a folder where the suites list the pids of their
# children (test/e2e/lib/processes.ts), and an EXIT trap that kills whatever is still listed then.
# $1: the name the messages give the script.
E2E_PID_DIR="$(mktemp -d)"
export E2E_PID_DIR
e2e_name="$1"
e2e_kill_leftovers() {
  local f pid
  for f in "$E2E_PID_DIR"/*; do
    [[ -e "$f" ]] || continue
    pid=$(basename "$f")
    if kill -0 "$pid" 2>/dev/null; then
      echo "$e2e_name: killing leftover $(cat "$f") (pid $pid)" >&2
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$E2E_PID_DIR"
}
trap e2e_kill_leftovers EXIT
