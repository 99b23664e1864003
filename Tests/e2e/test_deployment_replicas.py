"""docker/replicas/compose.yaml as it would run, without a Docker engine (like test_container.py):
the replicas' environment taken from the compose file, the load balancer from its nginx.conf with
the service names pointed at loopback ports, and PostgreSQL from the test cluster. Through nginx:
every request answered, both replicas serving, a publish live on both, and one replica stopped
without a failed request. PostgreSQL pass only."""
import pathlib
import re
import socket
import subprocess
import time

import pytest
import yaml

import drivers
from test_postgres import fresh_database
from xizor_server import ADMIN_TOKEN, App, Client, XizorServer

pytestmark = pytest.mark.skipif(drivers.DRIVER != "postgres", reason="the PostgreSQL pass runs these")
FOLDER = pathlib.Path(__file__).resolve().parents[2] / "docker" / "replicas"
PAYWALL = "/v1/sdk/placements/onboarding/paywall"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def deployment(tmp_path):
    compose = yaml.safe_load((FOLDER / "compose.yaml").read_text())
    services = compose["services"]
    replicas = sorted(name for name in services if name.startswith("xizor-"))
    assert len(replicas) == 2 and {"postgres", "nginx"} <= services.keys()
    env = {k: str(v) for k, v in services[replicas[0]]["environment"].items()}
    assert env["XIZOR_STORAGE_DRIVER"] == "postgres"
    assert re.match(r"postgresql://xizor@postgres:5432/xizor$", env["XIZOR_STORAGE_POSTGRES_URL"])
    # The compose file's values, but this cluster's database and a test token.
    env.update({"XIZOR_STORAGE_POSTGRES_URL": fresh_database("xizor_deployment"), "XIZOR_ADMIN_TOKEN": ADMIN_TOKEN,
                "XIZOR_ACCESS_LOG": "true", "XIZOR_LOG_LEVEL": "info", "PGPASSWORD": None})
    servers = {name: XizorServer(tmp_path / name, extra_env=env) for name in replicas}
    conf = (FOLDER / "nginx.conf").read_text()
    for name, server in servers.items():
        conf, n = re.subn(rf"server {name}:8080", f"server 127.0.0.1:{server.port}", conf)
        assert n == 1, f"nginx.conf names {name} once"
    port = free_port()
    conf, n = re.subn(r"listen 8080;", f"listen 127.0.0.1:{port};", conf)
    assert n == 1
    (tmp_path / "site.conf").write_text(conf)
    (tmp_path / "nginx.conf").write_text(f"""
        worker_processes 1;
        pid {tmp_path}/nginx.pid;
        error_log {tmp_path}/nginx-error.log warn;
        events {{ worker_connections 256; }}
        http {{
            access_log off;
            client_body_temp_path {tmp_path}/body; proxy_temp_path {tmp_path}/proxy;
            fastcgi_temp_path {tmp_path}/fcgi; uwsgi_temp_path {tmp_path}/uwsgi; scgi_temp_path {tmp_path}/scgi;
            include {tmp_path}/site.conf;
        }}""")
    nginx = subprocess.Popen(["/usr/sbin/nginx", "-c", str(tmp_path / "nginx.conf"), "-g", "daemon off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            if Client(base).get("/healthz").status_code == 200:
                break
        except Exception:
            time.sleep(0.05)
    yield base, servers
    nginx.terminate()
    nginx.wait(timeout=10)
    for server in servers.values():
        server.stop()


def served(server):
    return sum(1 for line in server.stderr_lines if '"message":"request"' in line)


def test_the_compose_deployment_balances_publishes_and_survives_a_replica_stopping(deployment):
    base, servers = deployment
    admin = Client(base, ADMIN_TOKEN)
    created = admin.post("/v1/apps", {"name": "Behind nginx"}).json()
    dashboard, sdk = Client(base, created["secretKey"]), Client(base, created["publicKey"])
    pw = dashboard.post("/v1/paywalls", {"template": "clean"}).json()["id"]
    assert dashboard.post(f"/v1/paywalls/{pw}/publish").status_code == 201
    assert dashboard.put("/v1/placements/onboarding", {"paywallId": pw}).status_code == 200
    # The replica that did not take the write applies it within the poll interval (docs/scaling.md),
    # not before the write's answer: give it that long, as after the publish below.
    time.sleep(0.1)
    before = {name: served(s) for name, s in servers.items()}
    answers = [sdk.get(PAYWALL) for _ in range(40)]
    assert {r.status_code for r in answers} == {200}, [(r.status_code, r.text[:200]) for r in answers if r.status_code != 200][:3]
    assert {r.json()["version"] for r in answers} == {1}, "whichever replica answered, it served the publish"
    time.sleep(0.2)
    assert all(served(s) > before[name] for name, s in servers.items()), "both replicas served"
    version = dashboard.post(f"/v1/paywalls/{pw}/publish", {"force": True}).json()["version"]
    time.sleep(0.1)
    assert {sdk.get(PAYWALL).json()["version"] for _ in range(20)} == {version}
    # One replica stops (a rolling restart's drain): nginx keeps answering from the other.
    first = sorted(servers)[0]
    assert servers[first].stop() == 0
    answers = [sdk.get(PAYWALL) for _ in range(20)] + [dashboard.post(f"/v1/paywalls/{pw}/publish", {"force": True})]
    assert [r.status_code for r in answers] == [200] * 20 + [201]
