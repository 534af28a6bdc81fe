#!/bin/bash
# `make lab`: JupyterLab on the lectures, opening the start page. It works where the user is
# root (containers, cloud VMs: Jupyter refuses root without --allow-root) and on machines
# without a display (no browser is started there; open the printed address yourself).
# Settings (environment): JUPYTER (the program), PORT (default 8888), IP (default localhost;
# 0.0.0.0 to reach it from outside a container), TOKEN (default: a fresh random one).
set -euo pipefail
cd "$(dirname "$0")/../course/lectures"
JUPYTER=${JUPYTER:-jupyter}
PORT=${PORT:-8888}
IP=${IP:-localhost}
TOKEN=${TOKEN:-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')}
args=(lab 00_start_here.ipynb --port="$PORT" --ip="$IP" --ServerApp.port_retries=0
      --IdentityProvider.token="$TOKEN")
if [ "$(id -u)" = 0 ]; then
    args+=(--allow-root)
fi
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "$(uname)" != Darwin ]; then
    args+=(--no-browser)
fi
host=$IP
[ "$host" = 0.0.0.0 ] && host=localhost
cat <<MSG

  The course is served at:

      http://$host:$PORT/lab/tree/00_start_here.ipynb?token=$TOKEN

  Open that address in a browser (it holds the password, the token).
  To stop the server: press Ctrl+C here twice (or run: $JUPYTER server stop $PORT).

MSG
exec "$JUPYTER" "${args[@]}"
