#!/usr/bin/env bash
# A LAVA server of one QEMU device on this machine, for the test that
# imports a job through its REST API: Debian's lava-server (its database in
# the local PostgreSQL, its web API under gunicorn on 127.0.0.1, its
# scheduler) and a lava-worker serving device qemu01 (TCG, one vCPU).
# Needs the lava-server and lava-dispatcher packages (.ci/run installs
# them) and root.
#   .ci/lava-server.sh start DIR   prints "URL TOKEN" once the worker is online
#   .ci/lava-server.sh stop DIR    ends what start began (and PostgreSQL,
#                                  if start had to start it)
# DIR holds the processes' ids and logs.  Registration (a user, a worker,
# the device) is kept in lava-server's database: start again reuses it.
set -euo pipefail
# Debian's Python, whatever python3 comes first on PATH: lava-server's
# modules are in its dist-packages.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mode=${1:-}
dir=${2:-}
[ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
port=${LAVA_PORT:-8000}
url="http://127.0.0.1:$port"

stop() {
    if [ -f "$dir/pids" ]; then
        while read -r pid; do
            kill -TERM -- "-$pid" 2>/dev/null || true
        done <"$dir/pids"
        sleep 2
        while read -r pid; do
            kill -KILL -- "-$pid" 2>/dev/null || true
        done <"$dir/pids"
        rm -f "$dir/pids"
    fi
    if [ -f "$dir/started-postgresql" ]; then
        pg_ctlcluster "$(cat "$dir/started-postgresql")" main stop || true
        rm -f "$dir/started-postgresql"
    fi
}

# Run "$@" in a process group of its own, its id kept for stop.
spawn() {
    local log=$1
    shift
    setsid "$@" >"$dir/$log" 2>&1 </dev/null &
    echo $! >>"$dir/pids"
}

case "$mode" in
stop) stop; exit 0 ;;
start) ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
command -v lava-server >/dev/null || { echo "no lava-server: apt-get install lava-server" >&2; exit 1; }
command -v lava-worker >/dev/null || { echo "no lava-worker: apt-get install lava-dispatcher" >&2; exit 1; }
mkdir -p "$dir"
trap 'echo "lava-server.sh: start failed; logs in $dir" >&2; stop' ERR
pg=$(pg_lsclusters -h | awk '$2 == "main" { print $1; exit }')
[ -n "$pg" ] || { echo "no PostgreSQL cluster 'main'" >&2; exit 1; }
if ! pg_lsclusters -h | awk '$2 == "main" && $4 == "online"' | grep -q .; then
    pg_ctlcluster "$pg" main start
    echo "$pg" >"$dir/started-postgresql"
fi
# lava-server's postinst skips its database while PostgreSQL is down.
# A new database numbers its jobs from 1 again: the logs of an earlier
# database's jobs would be taken for theirs, so they go first.
if ! su postgres -c "psql -lqt" | cut -d'|' -f1 | grep -qw lavaserver; then
    rm -rf /var/lib/lava-server/default/media/job-output
    DEBIAN_FRONTEND=noninteractive dpkg-reconfigure lava-server >"$dir/reconfigure.log" 2>&1
fi
m() { lava-server manage "$@"; }
m users details kbench >/dev/null 2>&1 || m users add --superuser --staff --passwd "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" kbench >/dev/null
token=$(m tokens add --user kbench | tail -1)
m workers details kbench-worker >/dev/null 2>&1 || m workers add kbench-worker >/dev/null
m device-types details qemu >/dev/null 2>&1 || m device-types add qemu >/dev/null
m devices details qemu01 >/dev/null 2>&1 || m devices add --device-type qemu --worker kbench-worker qemu01 >/dev/null
# The device: amd64 under TCG (no KVM here), one vCPU, user networking.
cat >/etc/lava-server/dispatcher-config/devices/qemu01.jinja2 <<'EOF'
{% extends 'qemu.jinja2' %}
{% set mac_addr = '52:54:00:12:34:59' %}
{% set memory = 1536 %}
{% set netdevice = 'user' %}
{% set no_kvm = True %}
{% set extra_options = ['-smp 1'] %}
EOF
chown lavaserver: /etc/lava-server/dispatcher-config/devices/qemu01.jinja2
# libguestfs builds LAVA's overlay disk in a VM of its own: TCG, as this
# host's /dev/kvm runs no ordinary kernel.
grep -q LIBGUESTFS_BACKEND_SETTINGS /etc/lava-server/env.yaml ||
    printf '  LIBGUESTFS_BACKEND_SETTINGS: force_tcg\n' >>/etc/lava-server/env.yaml
worker_token=$(m shell -c "from lava_scheduler_app.models import Worker; print(Worker.objects.get(hostname='kbench-worker').token)" | tail -1)
spawn gunicorn.log gunicorn3 lava_server.wsgi -u lavaserver -g lavaserver --worker-class eventlet --workers 2 --bind "127.0.0.1:$port"
spawn scheduler.log lava-server manage lava-scheduler --level INFO
spawn worker.log lava-worker --level INFO --url "$url/" --token "$worker_token" --name kbench-worker
for _ in $(seq 60); do
    if curl -sf "$url/api/v0.2/workers/kbench-worker/" | grep -q '"state": *"Online"'; then
        trap - ERR
        echo "$url $token"
        exit 0
    fi
    sleep 2
done
echo "lava-server.sh: the worker did not come online in 120 s; logs in $dir" >&2
stop
exit 1
