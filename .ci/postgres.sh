# Sourced by .ci/run: a throwaway PostgreSQL cluster on loopback for the store's tests, unless
# TOOL_SEARCH_TEST_POSTGRES already names a server. Exports TOOL_SEARCH_TEST_POSTGRES and stops and
# removes the cluster when the shell exits. When no cluster can be had, it says so loudly and the
# PostgreSQL tests are skipped (each says why); the embedded engine's tests still run.
#
# By hand: `source .ci/postgres.sh` in a shell, then `npx vitest run packages/store`.

start_throwaway_postgres() {
  local bin
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "ci: installing Debian's postgresql package for the store's tests"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }; then
      return 1
    fi
    bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    [ -n "$bin" ] || return 1
  fi
  # PostgreSQL refuses to run as root: the cluster belongs to the postgres user when we are root.
  local run=()
  if [ "$(id -u)" = "0" ]; then
    id postgres >/dev/null 2>&1 || return 1
    run=(runuser -u postgres --)
  fi
  PG_TMP="$(mktemp -d /tmp/tool-search-pg.XXXXXX)"
  chmod 755 "$PG_TMP"
  [ "${#run[@]}" -eq 0 ] || chown postgres "$PG_TMP"
  local port
  port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  "${run[@]}" "$bin/initdb" -D "$PG_TMP/data" -U postgres --auth=trust --no-sync -E UTF8 >"$PG_TMP/initdb.log" 2>&1 ||
    { cat "$PG_TMP/initdb.log"; return 1; }
  "${run[@]}" "$bin/pg_ctl" -D "$PG_TMP/data" -l "$PG_TMP/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $PG_TMP -c fsync=off -c max_connections=200" start >/dev/null ||
    { cat "$PG_TMP/server.log"; return 1; }
  PG_STOP=("${run[@]}" "$bin/pg_ctl" -D "$PG_TMP/data" -m immediate stop)
  export TOOL_SEARCH_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port/postgres"
  echo "ci: throwaway PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
}

stop_throwaway_postgres() {
  if [ -n "${PG_TMP:-}" ]; then
    "${PG_STOP[@]}" >/dev/null 2>&1 || true
    rm -rf "$PG_TMP"
  fi
}

if [ -z "${TOOL_SEARCH_TEST_POSTGRES:-}" ]; then
  if start_throwaway_postgres; then
    trap stop_throwaway_postgres EXIT
  else
    stop_throwaway_postgres
    echo "ci: WARNING: no PostgreSQL server could be started; the store's PostgreSQL tests will be SKIPPED" >&2
  fi
fi
