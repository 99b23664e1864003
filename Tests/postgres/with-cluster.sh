#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL cluster: created in a temporary directory, run by an
# unprivileged user (postgres, or nobody; the current user when not root), listening on a free
# loopback port, and removed when the command ends. The command finds it in XIZOR_TEST_POSTGRES_URL
# (a libpq connection string; tests add their own `dbname=`). fsync is off unless XIZOR_PG_FSYNC=on
# (the benchmarks): the cluster is thrown away, and durability on PostgreSQL is the server's own
# promise, not something these tests check.
#
#   Tests/postgres/with-cluster.sh swift test
set -euo pipefail
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$BIN/initdb" ] || { echo "with-cluster.sh: PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }
DIR=$(mktemp -d /tmp/xizor-pg.XXXXXX)
chmod 755 "$DIR"
if [ "$(id -u)" = 0 ]; then
    OWNER=$(id -u postgres >/dev/null 2>&1 && echo postgres || echo nobody)
    chown "$OWNER" "$DIR"
    AS=(runuser -u "$OWNER" --)
else
    AS=()
fi
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
stop() {
    "${AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$DIR"
}
trap stop EXIT
"${AS[@]}" "$BIN/initdb" -D "$DIR/data" -U xizor --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync >"$DIR/initdb.log" 2>&1 \
    || { cat "$DIR/initdb.log" >&2; exit 1; }
"${AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -o \
    "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=${XIZOR_PG_FSYNC:-off} -c max_connections=300" start >/dev/null \
    || { cat "$DIR/server.log" >&2; exit 1; }
export XIZOR_TEST_POSTGRES_URL="host=127.0.0.1 port=$PORT user=xizor dbname=postgres"
# For failure tests: restarts the server (fast shutdown: open connections are cut), same port.
cat >"$DIR/restart.sh" <<RESTART
#!/usr/bin/env bash
exec ${AS[*]} "$BIN/pg_ctl" -D "$DIR/data" -m fast -w restart >/dev/null
RESTART
chmod 755 "$DIR/restart.sh"
export XIZOR_TEST_POSTGRES_RESTART="$DIR/restart.sh"
"$@"
