"""A real Matrix homeserver (Synapse, from PyPI) for the Matrix channel's tests: made in DIR, on
127.0.0.1 with a free port, one user and one room. Prints one line of JSON once ready —
{"url", "token", "room"} — then serves until killed (it stops Synapse with it).

    matrix.py DIR
"""
import hashlib
import hmac
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(url, method="GET", body=None, token=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    if token:
        req.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read() or b"{}")


def main():
    home = os.path.abspath(sys.argv[1])
    os.makedirs(home, exist_ok=True)
    config = os.path.join(home, "hs.yaml")
    py = sys.executable
    subprocess.run(
        [py, "-m", "synapse.app.homeserver", "--server-name", "localhost", "--config-path", config,
         "--data-directory", home, "--generate-config", "--report-stats=no"],
        check=True, stdout=subprocess.DEVNULL, cwd=home,
    )
    port = free_port()
    with open(config) as f:
        text = f.read()
    text = text.replace("port: 8008", f"port: {port}").replace("'::1', '127.0.0.1'", "'127.0.0.1'")
    # Quiet, local, and no rate limit on the messages a test sends.
    text += "\nsuppress_key_server_warning: true\ntrusted_key_servers: []\nrc_message:\n  per_second: 1000\n  burst_count: 1000\n"
    text += "rc_login:\n  address:\n    per_second: 1000\n    burst_count: 1000\n  account:\n    per_second: 1000\n    burst_count: 1000\n"
    with open(config, "w") as f:
        f.write(text)
    log = open(os.path.join(home, "synapse.out"), "wb")
    server = subprocess.Popen([py, "-m", "synapse.app.homeserver", "--config-path", config], stdout=log, stderr=log, cwd=home)

    def stop(*_):
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while True:
        try:
            call(url + "/_matrix/client/versions")
            break
        except Exception:
            if server.poll() is not None or time.time() > deadline:
                sys.stderr.write(open(os.path.join(home, "synapse.out")).read())
                sys.exit("synapse did not start")
            time.sleep(0.2)
    secret = next(line.split(":", 1)[1].strip().strip('"') for line in text.splitlines() if line.startswith("registration_shared_secret:"))
    nonce = call(url + "/_synapse/admin/v1/register")["nonce"]
    mac = hmac.new(secret.encode(), b"\x00".join(p.encode() for p in (nonce, "console", "console-pass-1", "admin")), hashlib.sha1)
    registered = call(url + "/_synapse/admin/v1/register", "POST",
                      {"nonce": nonce, "username": "console", "password": "console-pass-1", "admin": True, "mac": mac.hexdigest()})
    token = registered["access_token"]
    room = call(url + "/_matrix/client/v3/createRoom", "POST", {"name": "approvals"}, token)["room_id"]
    print(json.dumps({"url": url, "token": token, "room": room}), flush=True)
    server.wait()


if __name__ == "__main__":
    main()
