# A throwaway PostgreSQL cluster for the shared-store tests, sourced by
# .ci/run (and by hand: `source .ci/pg.sh; start_pg; ...; stop_pg`): its own
# data dir, loopback only, a free port, password auth, TLS on with a
# throwaway self-signed certificate for `localhost`.  Exports
# KBENCH_TEST_PG (user kbench, TLS optional) and, when openssl is there,
# KBENCH_TEST_PG_TLS (user kbtls, refused without TLS) and
# KBENCH_TEST_PG_CA (the CA that signed the server's certificate) and
# KBENCH_TEST_PG_CERT (the server's certificate itself).

pg_tmp=""
stop_pg() {
    if [ -n "$pg_tmp" ]; then
        runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_tmp/data" -m immediate stop >/dev/null 2>&1 || true
        rm -rf "$pg_tmp"
        pg_tmp=""
    fi
}

start_pg() {
    pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
    if [ -z "$pg_bin" ] || [ "$(id -u)" != 0 ] || ! id postgres >/dev/null 2>&1; then
        echo "warning: no PostgreSQL server here; its tests will say they were skipped"
        return 0
    fi
    pg_tmp=$(mktemp -d)
    chown postgres "$pg_tmp"
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    echo kbpass > "$pg_tmp/pw"
    chown postgres "$pg_tmp/pw"
    runuser -u postgres -- "$pg_bin/initdb" -D "$pg_tmp/data" -U kbench --pwfile="$pg_tmp/pw" \
        --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    local ssl=()
    if command -v openssl >/dev/null; then
        # A throwaway CA, and the server's certificate for localhost signed by it.
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=kbench-test-ca \
            -keyout "$pg_tmp/ca.key" -out "$pg_tmp/ca.crt" 2>/dev/null
        openssl req -newkey rsa:2048 -nodes -subj /CN=localhost \
            -keyout "$pg_tmp/data/server.key" -out "$pg_tmp/server.csr" 2>/dev/null
        printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n' > "$pg_tmp/ext"
        openssl x509 -req -in "$pg_tmp/server.csr" -CA "$pg_tmp/ca.crt" -CAkey "$pg_tmp/ca.key" \
            -CAcreateserial -days 2 -extfile "$pg_tmp/ext" -out "$pg_tmp/data/server.crt" 2>/dev/null
        cp "$pg_tmp/data/server.crt" "$pg_tmp/server.crt"
        chown postgres "$pg_tmp/data/server.key" "$pg_tmp/data/server.crt"
        chmod 600 "$pg_tmp/data/server.key"
        ssl=(-c ssl=on)
        # kbtls may only connect over TLS.
        { echo "hostnossl all kbtls 127.0.0.1/32 reject"; echo "hostnossl all kbtls ::1/128 reject"; cat "$pg_tmp/data/pg_hba.conf"; } \
            > "$pg_tmp/hba" && cat "$pg_tmp/hba" > "$pg_tmp/data/pg_hba.conf"
    fi
    runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_tmp/data" -l "$pg_tmp/log" -w \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $pg_tmp ${ssl[*]}" start >/dev/null
    PGPASSWORD=kbpass "$pg_bin/createdb" -h 127.0.0.1 -p "$port" -U kbench kbench
    export KBENCH_TEST_PG="postgres://kbench:kbpass@127.0.0.1:$port/kbench"
    echo "PostgreSQL test server on 127.0.0.1:$port"
    if [ ${#ssl[@]} -gt 0 ]; then
        PGPASSWORD=kbpass "$pg_bin/psql" -q -h 127.0.0.1 -p "$port" -U kbench -d kbench \
            -c "CREATE ROLE kbtls LOGIN PASSWORD 'kbpass'; GRANT ALL ON DATABASE kbench TO kbtls; GRANT ALL ON SCHEMA public TO kbtls;" >/dev/null
        export KBENCH_TEST_PG_TLS="postgres://kbtls:kbpass@localhost:$port/kbench"
        export KBENCH_TEST_PG_CA="$pg_tmp/ca.crt"
        export KBENCH_TEST_PG_CERT="$pg_tmp/server.crt"
        echo "  with TLS (ssl=on, a throwaway CA's certificate for localhost)"
    fi
}
