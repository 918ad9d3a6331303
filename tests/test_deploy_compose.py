"""deploy/compose.yaml starts what the Procfile names, with Redis on AOF (issue 15).

No container engine runs on the test machines, so the file is read, not run: a compose file that
drifts from the Procfile, or that loses its AOF, fails here.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import yaml

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def _compose() -> dict[str, Any]:
    data = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert isinstance(data, dict)
    return data


def test_every_procfile_process_is_a_compose_service_with_the_same_command() -> None:
    services = _compose()["services"]
    procfile = {}
    for line in (DEPLOY / "Procfile").read_text().splitlines():
        name, _, command = line.partition(":")
        procfile[name.strip()] = shlex.split(command)
    named = {"web": "api", "notices": "notices", "bots": "bots", "hooks": "hooks", "mail": "mail"}
    assert set(procfile) == set(named)
    for proc, service in named.items():
        command = services[service]["command"]
        if proc == "mail":  # the same receiver, listening beyond the container's loopback
            assert command[:3] == procfile[proc][:3] and command[-1].endswith(":8025")
        else:
            assert command == procfile[proc], proc
        assert services[service]["environment"]["REDIS_URL"] == "redis://redis:6379/0"
        assert services[service]["depends_on"]["redis"]["condition"] == "service_healthy"


def test_redis_keeps_an_append_only_file_on_a_volume() -> None:
    redis = _compose()["services"]["redis"]
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--dir") + 1] == "/data"
    assert any(v.endswith(":/data") for v in redis["volumes"])
    assert "ports" not in redis  # only the compose network reaches it


def test_mail_bots_and_webhooks_have_workers_of_their_own() -> None:
    """Issue 28, items 5 and 6: no worker process of deploy/ works two of the mail, bot and webhook
    queues, and together they work every queue."""
    groups = []
    for line in (DEPLOY / "Procfile").read_text().splitlines():
        command = shlex.split(line.partition(":")[2])
        if command[:2] == ["portolan", "worker"]:
            groups.append(command[command.index("--queues") + 1].split(","))
    assert sorted(q for group in groups for q in group) == ["bots", "clock", "notices", "webhooks"]
    assert all(len({"notices", "bots", "webhooks"} & set(group)) == 1 for group in groups)
